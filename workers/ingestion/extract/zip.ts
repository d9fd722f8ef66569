/**
 * Reading DOCX/PPTX containers without trusting them. The central directory is checked before
 * anything is inflated (entry count, declared sizes, names that collide), and every entry we
 * inflate is counted as the bytes come out of zlib, so a zip that lies about its sizes stops at
 * the limit too instead of filling memory: a 1 MB upload can otherwise inflate to gigabytes.
 * A parser we do not control reads `measuredArchive()`, a zip re-written from the measured
 * entries only, never the upload itself: JSZip takes names from the local headers, reads central
 * entries past the declared count and keeps the last of a duplicate name, so the upload's bytes
 * can show it an entry nobody measured.
 */
import { createInflateRaw } from "node:zlib";
import { ExtractionError, type ExtractionLimits } from "./types";
import { collisionKey, entryPath } from "./zip-names";
import { writeZip } from "./zip-writer";

export interface ZipEntry {
  /** The path readers know the entry by (zip-names.ts `entryPath`). */
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const MAX32 = 0xffffffff;

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

/** Beyond these a plain (non-ZIP64) zip cannot describe the measured entries. */
const PLAIN_ZIP_MAX_ENTRIES = 0xffff;

export class SafeZip {
  /** Entries by name, in directory order; openZip refuses a file where two names collide. */
  readonly entries = new Map<string, ZipEntry>();
  private inflated = 0;
  /** What each entry inflated to, filled by measureAll. */
  private readonly measured = new Map<ZipEntry, number>();

  constructor(
    private readonly bytes: Buffer,
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

  /** Inflates every entry once, keeping nothing, to prove the whole file stays under the limit. */
  async measureAll(): Promise<void> {
    for (const entry of this.entries.values()) {
      let produced = 0;
      await this.inflate(entry, (chunk) => {
        produced += chunk.length;
      });
      this.measured.set(entry, produced);
    }
  }

  /**
   * The file re-written from the measured entries only (their stored bytes, the sizes they
   * inflated to, the names we checked): what a parser that reads the zip by itself is given.
   */
  measuredArchive(): Buffer {
    const entries = [...this.entries.values()].map((entry) => {
      const uncompressedSize = this.measured.get(entry);
      if (uncompressedSize === undefined) throw new Error(`measuredArchive() before measureAll(): ${entry.name} was never measured`);
      return { name: entry.name, method: entry.method, crc32: entry.crc32, data: this.dataOf(entry), uncompressedSize };
    });
    if (entries.length > PLAIN_ZIP_MAX_ENTRIES || this.bytes.length + entries.length * 64 > MAX32 || this.inflated > MAX32) {
      throw tooLarge("The file is too large to be read as one document");
    }
    return writeZip(entries);
  }

  private async inflate(entry: ZipEntry, onChunk: (chunk: Buffer) => void): Promise<void> {
    const data = this.dataOf(entry);
    if (entry.method === 0) {
      this.count(entry, data.length, data.length);
      onChunk(data);
      return;
    }
    if (entry.method !== 8) throw new ExtractionError(`${this.corrupt} (it uses an unsupported compression method)`, undefined, "EXTRACTION_UNSUPPORTED");
    await new Promise<void>((resolve, reject) => {
      const inflater = createInflateRaw();
      let produced = 0;
      inflater.on("data", (chunk: Buffer) => {
        produced += chunk.length;
        try {
          this.count(entry, produced, chunk.length);
        } catch (error) {
          inflater.destroy();
          reject(error);
          return;
        }
        onChunk(chunk);
      });
      inflater.on("end", () => resolve());
      inflater.on("error", (error) => reject(new ExtractionError(this.corrupt, error)));
      inflater.end(data);
    });
  }

  /** Stops an entry that inflates past what it declared, or the file past the limit. */
  private count(entry: ZipEntry, producedByEntry: number, added: number): void {
    this.inflated += added;
    if (producedByEntry > entry.uncompressedSize) {
      throw tooLarge(`The file unpacks to more than its own directory declares (${entry.name}); it looks like a decompression bomb`);
    }
    if (this.inflated > this.limits.zipMaxUncompressedBytes) {
      throw tooLarge(`The file unpacks to more than ${megabytes(this.limits.zipMaxUncompressedBytes)} (ZIP_MAX_UNCOMPRESSED_BYTES)`);
    }
  }

  private dataOf(entry: ZipEntry): Buffer {
    const at = entry.localHeaderOffset;
    if (at + 30 > this.bytes.length || this.bytes.readUInt32LE(at) !== LOCAL_HEADER) throw new ExtractionError(this.corrupt);
    const start = at + 30 + this.bytes.readUInt16LE(at + 26) + this.bytes.readUInt16LE(at + 28);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw new ExtractionError(this.corrupt);
    return this.bytes.subarray(start, end);
  }
}

/** Reads the central directory and refuses, before inflating anything, a file over the limits. */
export function openZip(bytes: Buffer, limits: ExtractionLimits, corrupt: string): SafeZip {
  const zip = new SafeZip(bytes, limits, corrupt);
  const fail = () => new ExtractionError(corrupt);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw fail();
  let count = bytes.readUInt16LE(eocd + 10);
  let offset = bytes.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === MAX32) {
    const locator = eocd - 20;
    if (locator < 0 || bytes.readUInt32LE(locator) !== EOCD64_LOCATOR) throw fail();
    const record = Number(bytes.readBigUInt64LE(locator + 8));
    if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== EOCD64) throw fail();
    count = Number(bytes.readBigUInt64LE(record + 32));
    offset = Number(bytes.readBigUInt64LE(record + 48));
  }
  if (count > limits.zipMaxEntries)
    throw tooLarge(`The file holds ${count.toLocaleString("en")} parts, more than ${limits.zipMaxEntries.toLocaleString("en")} (ZIP_MAX_ENTRIES)`);

  let declared = 0;
  let at = offset;
  /** The first entry's path under each collision key, to name both parts when a second one comes. */
  const seen = new Map<string, string>();
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_ENTRY) throw fail();
    const flags = bytes.readUInt16LE(at + 8);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: entryPath(bytes.toString(flags & 0x800 ? "utf8" : "latin1", at + 46, at + 46 + nameLength)),
      method: bytes.readUInt16LE(at + 10),
      flags,
      crc32: bytes.readUInt32LE(at + 16),
      compressedSize: bytes.readUInt32LE(at + 20),
      uncompressedSize: bytes.readUInt32LE(at + 24),
      localHeaderOffset: bytes.readUInt32LE(at + 42),
    };
    readZip64Sizes(bytes, at + 46 + nameLength, extraLength, entry);
    if (flags & 0x1) throw new ExtractionError("The file is password-protected; remove the password and upload it again", undefined, "EXTRACTION_UNSUPPORTED");
    declared += entry.uncompressedSize;
    if (declared > limits.zipMaxUncompressedBytes) {
      throw tooLarge(`The file unpacks to more than ${megabytes(limits.zipMaxUncompressedBytes)} (ZIP_MAX_UNCOMPRESSED_BYTES)`);
    }
    const key = collisionKey(entry.name);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw ambiguous(earlier, entry.name);
    seen.set(key, entry.name);
    zip.entries.set(entry.name, entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return zip;
}

/** ZIP64 keeps sizes that do not fit 32 bits in an extra field, in this order, only when needed. */
function readZip64Sizes(bytes: Buffer, start: number, length: number, entry: ZipEntry): void {
  const needed = entry.uncompressedSize === MAX32 || entry.compressedSize === MAX32 || entry.localHeaderOffset === MAX32;
  if (!needed) return;
  for (let at = start; at + 4 <= start + length; ) {
    const id = bytes.readUInt16LE(at);
    const size = bytes.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        const value = field + 8 <= at + 4 + size ? Number(bytes.readBigUInt64LE(field)) : MAX32;
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === MAX32) entry.uncompressedSize = next();
      if (entry.compressedSize === MAX32) entry.compressedSize = next();
      if (entry.localHeaderOffset === MAX32) entry.localHeaderOffset = next();
      return;
    }
    at += 4 + size;
  }
}
