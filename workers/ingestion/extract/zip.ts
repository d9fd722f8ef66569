/**
 * Reading DOCX/PPTX/XLSX containers without trusting them. yauzl reads the central directory
 * (never the local headers' names, never entries past the declared count); before anything is
 * inflated the file is refused when it lists too many entries, declares more bytes than the limit,
 * is password-protected or holds names that collide. Every entry we inflate is counted as the
 * bytes come out of zlib, against what it declared and against the file's limit, so a zip that
 * lies about its sizes stops there too instead of filling memory: a 1 MB upload can otherwise
 * inflate to gigabytes. (yauzl's own size check is off: it would stop a liar too, but with an
 * error only its message tells apart.)
 * A parser we do not control reads `measuredArchive()`, a zip re-written by fflate from the
 * measured entries only, never the upload itself: JSZip takes names from the local headers, reads
 * central entries past the declared count and keeps the last of a duplicate name, so the upload's
 * bytes can show it an entry nobody measured.
 */
import { Zip, type ZipInputFile } from "fflate";
import yauzl from "yauzl";
import { ExtractionError, type ExtractionLimits } from "./types";
import { collisionKey, entryPath } from "./zip-names";

export interface ZipEntry {
  /** The path readers know the entry by (zip-names.ts `entryPath`). */
  name: string;
  /** The entry as the central directory declares it (sizes, CRC, method). */
  declared: yauzl.Entry;
}

const EOCD = 0x06054b50;
const MAX32 = 0xffffffff;
const STORED = 0;
const DEFLATED = 8;
/** Beyond these entries a plain (non-ZIP64) zip, all fflate writes, cannot describe the measured entries. */
const PLAIN_ZIP_MAX_ENTRIES = 0xffff;

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

function tooLarge(message: string): ExtractionError {
  return new ExtractionError(`${message}; split it into smaller documents or ask an operator to raise the limit`, undefined, "EXTRACTION_TOO_LARGE");
}

function ambiguous(first: string, second: string): ExtractionError {
  const names = first === second ? `two parts named "${first}"` : `parts named "${first}" and "${second}", which readers take for the same part`;
  return new ExtractionError(
    `The file holds ${names}; Office never writes that, so it was refused before anything in it was unpacked. Save it again from Word or PowerPoint and upload that copy`,
    undefined,
    "EXTRACTION_AMBIGUOUS_ARCHIVE",
  );
}

export class SafeZip {
  /** Entries by name, in directory order; openZip refuses a file where two names collide. */
  readonly entries = new Map<string, ZipEntry>();
  private inflated = 0;

  constructor(
    private readonly file: yauzl.ZipFile,
    private readonly byteLength: number,
    private readonly limits: ExtractionLimits,
    private readonly corrupt: string,
  ) {}

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes as UTF-8 text; counted against the limit as they are inflated. */
  async readText(name: string): Promise<string> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExtractionError(this.corrupt);
    const chunks: Buffer[] = [];
    await this.inflate(entry, (chunk) => chunks.push(chunk));
    return Buffer.concat(chunks).toString("utf8");
  }

  /**
   * Inflates every entry once, keeping none of what it inflates to, to prove the whole file stays
   * under the limit, and returns the file re-written from those entries only (their stored bytes, the sizes they
   * inflated to, the names we checked): what a parser that reads the zip by itself is given.
   */
  async measuredArchive(): Promise<Buffer> {
    if (this.entries.size > PLAIN_ZIP_MAX_ENTRIES || this.byteLength + this.entries.size * 64 > MAX32) {
      throw tooLarge("The file is too large to be read as one document");
    }
    const parts: Uint8Array[] = [];
    let failure: Error | null = null;
    const writer = new Zip((error, chunk) => {
      if (error) failure = error;
      else parts.push(chunk);
    });
    for (const entry of this.entries.values()) {
      const size = await this.inflate(entry, () => undefined);
      if (this.inflated > MAX32) throw tooLarge("The file is too large to be read as one document");
      const stored = await this.storedBytes(entry);
      // The entry's own compressed bytes, passed through: nothing is deflated a second time.
      const passThrough: ZipInputFile = { filename: entry.name, size, crc: entry.declared.crc32, compression: entry.declared.compressionMethod };
      writer.add(passThrough);
      passThrough.ondata!(null, stored, true);
    }
    writer.end();
    if (failure) throw new ExtractionError(this.corrupt, failure);
    return Buffer.concat(parts);
  }

  /** Inflates the entry, handing over its bytes as they come; returns how many it inflated to. */
  private async inflate(entry: ZipEntry, onChunk: (chunk: Buffer) => void): Promise<number> {
    const method = entry.declared.compressionMethod;
    if (method !== STORED && method !== DEFLATED) {
      throw new ExtractionError(`${this.corrupt} (it uses an unsupported compression method)`, undefined, "EXTRACTION_UNSUPPORTED");
    }
    let produced = 0;
    await this.stream(entry, true, (chunk) => {
      produced += chunk.length;
      this.count(entry, produced, chunk.length);
      onChunk(chunk);
    });
    return produced;
  }

  /** The entry's bytes as the file stores them (deflated when it is). */
  private async storedBytes(entry: ZipEntry): Promise<Buffer<ArrayBuffer>> {
    const chunks: Buffer[] = [];
    await this.stream(entry, false, (chunk) => chunks.push(chunk));
    return Buffer.concat(chunks);
  }

  /**
   * Streams the entry's bytes (inflated, or as stored) to `onChunk`; a throw from it stops the
   * stream at once and is what the call fails with.
   */
  private async stream(entry: ZipEntry, decompress: boolean, onChunk: (chunk: Buffer) => void): Promise<void> {
    let readable: NodeJS.ReadableStream & { destroy(): void };
    try {
      // yauzl takes `decompress` for deflated entries only; a stored entry's bytes are its content.
      const options = entry.declared.compressionMethod === DEFLATED ? { decompress } : {};
      readable = (await this.file.openReadStreamPromise(entry.declared, options)) as typeof readable;
    } catch (error) {
      throw new ExtractionError(this.corrupt, error);
    }
    await new Promise<void>((resolve, reject) => {
      readable.on("data", (chunk: Buffer) => {
        try {
          onChunk(chunk);
        } catch (error) {
          readable.destroy();
          reject(error);
        }
      });
      readable.on("end", () => resolve());
      readable.on("error", (error) => reject(new ExtractionError(this.corrupt, error)));
    });
  }

  /** Stops an entry that inflates past what it declared, or the file past the limit. */
  private count(entry: ZipEntry, producedByEntry: number, added: number): void {
    this.inflated += added;
    if (producedByEntry > entry.declared.uncompressedSize) {
      throw tooLarge(`The file unpacks to more than its own directory declares (${entry.name}); it looks like a decompression bomb`);
    }
    if (this.inflated > this.limits.zipMaxUncompressedBytes) {
      throw tooLarge(`The file unpacks to more than ${megabytes(this.limits.zipMaxUncompressedBytes)} (ZIP_MAX_UNCOMPRESSED_BYTES)`);
    }
  }
}

/**
 * The file up to the end of its end-of-central-directory record. Office, JSZip and the reader
 * before yauzl ignore bytes after it (a signature, padding, an appended tag); yauzl refuses them.
 */
function throughEndRecord(bytes: Buffer): Buffer | null {
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (bytes.readUInt32LE(at) === EOCD) return bytes.subarray(0, Math.min(bytes.length, at + 22 + bytes.readUInt16LE(at + 20)));
  }
  return null;
}

/** The next entry of the central directory, or null after the last one the end record counts. */
function nextEntry(file: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const settle = (result: yauzl.Entry | null, error?: unknown) => {
      file.off("entry", onEntry).off("end", onEnd).off("error", onError);
      if (error) reject(error);
      else resolve(result);
    };
    const onEntry = (entry: yauzl.Entry) => settle(entry);
    const onEnd = () => settle(null);
    const onError = (error: unknown) => settle(null, error);
    file.on("entry", onEntry).on("end", onEnd).on("error", onError);
    file.readEntry();
  });
}

/** Reads the central directory and refuses, before inflating anything, a file over the limits. */
export async function openZip(bytes: Buffer, limits: ExtractionLimits, corrupt: string): Promise<SafeZip> {
  const archive = throughEndRecord(bytes);
  if (!archive) throw new ExtractionError(corrupt);
  let file: yauzl.ZipFile;
  try {
    // Names stay bytes: they are decoded and resolved below exactly as the parsers behind us read them.
    file = await yauzl.fromBufferPromise(archive, { decodeStrings: false, validateEntrySizes: false });
  } catch (error) {
    throw new ExtractionError(corrupt, error);
  }
  if (file.entryCount > limits.zipMaxEntries) {
    throw tooLarge(`The file holds ${file.entryCount.toLocaleString("en")} parts, more than ${limits.zipMaxEntries.toLocaleString("en")} (ZIP_MAX_ENTRIES)`);
  }
  const zip = new SafeZip(file, archive.length, limits, corrupt);
  let declared = 0;
  /** The first entry's path under each collision key, to name both parts when a second one comes. */
  const seen = new Map<string, string>();
  for (;;) {
    let entry: yauzl.Entry | null;
    try {
      entry = await nextEntry(file);
    } catch (error) {
      throw new ExtractionError(corrupt, error);
    }
    if (!entry) break;
    const name = entryPath(entry.fileNameRaw.toString(entry.generalPurposeBitFlag & 0x800 ? "utf8" : "latin1"));
    if (entry.isEncrypted())
      throw new ExtractionError("The file is password-protected; remove the password and upload it again", undefined, "EXTRACTION_UNSUPPORTED");
    declared += entry.uncompressedSize;
    if (declared > limits.zipMaxUncompressedBytes) {
      throw tooLarge(`The file unpacks to more than ${megabytes(limits.zipMaxUncompressedBytes)} (ZIP_MAX_UNCOMPRESSED_BYTES)`);
    }
    const key = collisionKey(name);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw ambiguous(earlier, name);
    seen.set(key, name);
    zip.entries.set(name, { name, declared: entry });
  }
  return zip;
}
