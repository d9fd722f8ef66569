/**
 * OCR for scanned PDF pages and uploaded PNG/JPEG images: Debian's tesseract, run as a child
 * process of the extraction thread, the PDF page rendered to PNG by poppler's pdftoppm first.
 * Every child gets the thread's limits in its own form, because a thread cannot bound another
 * process: a wall-clock limit (killed past OCR_PAGE_TIMEOUT_MS or what is left of
 * OCR_TIMEOUT_MS), an address-space and CPU-time limit set by prlimit (so a child whose thread
 * was terminated still dies by itself), and one OpenMP thread (one core per extraction thread,
 * as EXTRACT_THREADS promises). Bytes travel through pipes: no temporary files to clean up.
 * A server without tesseract still starts and reads every other format; a document that needs
 * OCR then fails OCR_UNAVAILABLE, saying what to install.
 */
import { spawn } from "node:child_process";
import { constants, accessSync } from "node:fs";
import { delimiter, join } from "node:path";
import { DEFAULT_OCR_SETTINGS, ExtractionError, type ExtractionLimits, type OcrSettings } from "./types";

/**
 * pdftoppm renders a page so its longer side has this many pixels: about 215 dpi for A4 or
 * Letter (scanners store 200–300 dpi), and bounded for a page drawn a metre wide. Measured on
 * the scanned fixture: 3,300 px (300 dpi) cost 1.25 s of CPU a page, 2,500 px 0.83 s, same text.
 */
export const RENDER_LONGER_SIDE_PX = 2500;

/** Largest image OCR is given (pixels): a 5 MB PNG can declare a 100 000 × 100 000 canvas, which decodes to 10 GB. */
export const MAX_IMAGE_PIXELS = 40_000_000;

const PRLIMIT = "/usr/bin/prlimit";

const INSTALL_HINT = "an operator can install it (Debian: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils)";

/** The program's full path, found the way a shell would, or null when it is not installed. */
export function resolveProgram(program: string, path = process.env.PATH ?? ""): string | null {
  const candidates = program.includes("/")
    ? [program]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

function unavailable(what: string): ExtractionError {
  return new ExtractionError(
    `This file needs OCR (it is an image or a scanned page without text), and ${what} on this server; ${INSTALL_HINT}, or upload a copy with a text layer`,
    undefined,
    "OCR_UNAVAILABLE",
  );
}

function ocrTimeout(limitName: "OCR_PAGE_TIMEOUT_MS" | "OCR_TIMEOUT_MS", ms: number): ExtractionError {
  return new ExtractionError(
    `Reading the scanned file by OCR took longer than ${Math.round(ms / 1000)} s (${limitName}) and was stopped; split it into smaller documents or ask an operator to raise the limit`,
    undefined,
    "EXTRACTION_TIMEOUT",
  );
}

interface Bounded {
  stdout: Buffer;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Runs one program under the OCR limits, `input` on its stdin, collecting stdout (at most `maxOutput` bytes). */
function runBounded(program: string, args: string[], input: Buffer, memoryMb: number, timeoutMs: number, maxOutput: number): Promise<Bounded> {
  const cpuSeconds = Math.max(1, Math.ceil(timeoutMs / 1000) + 1);
  const limited = resolveProgram(PRLIMIT) !== null;
  const [command, argv] = limited ? [PRLIMIT, [`--as=${memoryMb * 1024 * 1024}`, `--cpu=${cpuSeconds}`, "--", program, ...args]] : [program, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      stdio: ["pipe", "pipe", "ignore"],
      // A bare environment (the worker's secrets are none of tesseract's business); PATH is the process's, to find the programs it names.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", OMP_THREAD_LIMIT: "1", LC_ALL: "C.UTF-8" },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let overflow = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) {
        overflow = true;
        child.kill("SIGKILL");
      } else chunks.push(chunk);
    });
    // A child that exits before reading all its input closes the pipe; that is its exit code's story, not ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (overflow) {
        reject(new ExtractionError("OCR produced more output than one page can hold", undefined, "EXTRACTION_TOO_LARGE"));
        return;
      }
      // prlimit's CPU limit ends a runaway child with SIGXCPU (or SIGKILL past the hard limit): a timeout too.
      resolve({ stdout: Buffer.concat(chunks), code, signal, timedOut: timedOut || signal === "SIGXCPU" });
    });
  });
}

const CHECK_MEMORY_MB = 1024;

/** What this thread found installed, looked up once per set of settings. */
const checked = new Map<string, Promise<{ tesseract: string; pdftoppm: string | null }>>();

async function checkInstalled(settings: OcrSettings): Promise<{ tesseract: string; pdftoppm: string | null }> {
  const tesseract = resolveProgram(settings.tesseract);
  if (!tesseract) throw unavailable(`tesseract (${settings.tesseract}) is not installed`);
  // Our own look-up, not a file's: bounded, but not by OCR_MEMORY_MB, so a tight limit is reported where a file meets it.
  const listed = await runBounded(tesseract, ["--list-langs"], Buffer.alloc(0), CHECK_MEMORY_MB, 10_000, 1 << 20);
  if (listed.code !== 0) throw unavailable(`tesseract (${tesseract}) does not run`);
  // The first line is a title ("List of available languages in …"); the rest are codes.
  const installed = new Set(
    listed.stdout
      .toString("utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim()),
  );
  const missing = settings.languages.split("+").filter((language) => !installed.has(language));
  if (missing.length > 0) throw unavailable(`tesseract has no data for ${missing.join(", ")} (OCR_LANGUAGES; Debian: tesseract-ocr-${missing[0]})`);
  return { tesseract, pdftoppm: resolveProgram(settings.pdftoppm) };
}

function installed(settings: OcrSettings): Promise<{ tesseract: string; pdftoppm: string | null }> {
  const key = JSON.stringify(settings);
  let found = checked.get(key);
  if (!found) {
    found = checkInstalled(settings);
    // A failed look-up is not remembered: the operator may install the packages while the worker runs.
    found.catch(() => checked.delete(key));
    checked.set(key, found);
  }
  return found;
}

/** Output cap per page: a dense A4 page holds about 5 000 characters; this leaves room for tables. */
const MAX_PAGE_TEXT_BYTES = 1 << 20;

/**
 * One OCR session: the document's deadline, started when the file turns out to need OCR. Pages
 * are read one after another (one core), each bounded by the page limit and what is left.
 */
export class OcrSession {
  private readonly settings: OcrSettings;
  private readonly deadline: number;

  private constructor(limits: ExtractionLimits) {
    this.settings = limits.ocr ?? DEFAULT_OCR_SETTINGS;
    this.deadline = performance.now() + this.settings.timeoutMs;
  }

  /** Checks tesseract is there (OCR_UNAVAILABLE otherwise) and tells the thread its clock is now the OCR budget. */
  static async start(limits: ExtractionLimits): Promise<OcrSession> {
    const session = new OcrSession(limits);
    await installed(session.settings);
    limits.onOcrStart?.();
    return session;
  }

  get maxPages(): number {
    return this.settings.maxPages;
  }

  /** Time this step may take: the page limit, or less when the document's budget is nearly spent. */
  private budget(): { ms: number; limit: "OCR_PAGE_TIMEOUT_MS" | "OCR_TIMEOUT_MS" } {
    const left = Math.floor(this.deadline - performance.now());
    if (left <= 0) throw ocrTimeout("OCR_TIMEOUT_MS", this.settings.timeoutMs);
    return left < this.settings.pageTimeoutMs ? { ms: left, limit: "OCR_TIMEOUT_MS" } : { ms: this.settings.pageTimeoutMs, limit: "OCR_PAGE_TIMEOUT_MS" };
  }

  private timeoutFor(limit: "OCR_PAGE_TIMEOUT_MS" | "OCR_TIMEOUT_MS"): ExtractionError {
    return ocrTimeout(limit, limit === "OCR_TIMEOUT_MS" ? this.settings.timeoutMs : this.settings.pageTimeoutMs);
  }

  /** The text tesseract reads in a PNG or JPEG. */
  async readImage(image: Buffer): Promise<string> {
    const { tesseract } = await installed(this.settings);
    const { ms, limit } = this.budget();
    const result = await runBounded(tesseract, ["stdin", "stdout", "-l", this.settings.languages], image, this.settings.memoryMb, ms, MAX_PAGE_TEXT_BYTES);
    if (result.timedOut) throw this.timeoutFor(limit);
    if (result.code !== 0) {
      throw new ExtractionError(
        `The image could not be read by OCR: it may be corrupt, or need more memory than OCR_MEMORY_MB (${this.settings.memoryMb} MB) allows`,
      );
    }
    return result.stdout.toString("utf8").replaceAll("\f", "");
  }

  /** Page `page` (1-based) of the PDF rendered to PNG, then read. */
  async readPdfPage(pdf: Buffer, page: number): Promise<string> {
    const { pdftoppm } = await installed(this.settings);
    if (!pdftoppm) throw unavailable(`pdftoppm (${this.settings.pdftoppm}, Debian's poppler-utils), which renders a PDF page for OCR, is not installed`);
    const { ms, limit } = this.budget();
    const args = ["-f", String(page), "-l", String(page), "-scale-to", String(RENDER_LONGER_SIDE_PX), "-gray", "-png", "-singlefile", "-"];
    // A rendered A4 page in grey is 1–8 MB of PNG; more than 64 MB is a page built to be huge.
    const rendered = await runBounded(pdftoppm, args, pdf, this.settings.memoryMb, ms, 64 << 20);
    if (rendered.timedOut) throw this.timeoutFor(limit);
    if (rendered.code !== 0 || rendered.stdout.length === 0)
      throw new ExtractionError(`Page ${page} of the PDF could not be rendered for OCR; the file may be corrupt`);
    return this.readImage(rendered.stdout);
  }
}

/** Width × height from a PNG's IHDR or a JPEG's frame header, or null when the header is not one we know. */
export function imageDimensions(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString("latin1", 12, 16) === "IHDR") {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length) {
      if (bytes[at] !== 0xff) return null;
      const marker = bytes[at + 1]!;
      // Fill bytes and markers without a length (RSTn, TEM) are skipped one at a time.
      if (marker === 0xff || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        at += marker === 0xff ? 1 : 2;
        continue;
      }
      const length = bytes.readUInt16BE(at + 2);
      // SOF0..SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
      }
      at += 2 + length;
    }
  }
  return null;
}

/** Refuses an image whose declared canvas would decode to more than MAX_IMAGE_PIXELS, before any decoder sees it. */
export function checkImageSize(bytes: Buffer): void {
  const size = imageDimensions(bytes);
  if (!size) throw new ExtractionError("The image is corrupt or could not be read");
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    throw new ExtractionError(
      `The image is ${size.width} × ${size.height} pixels, more than OCR reads (${(MAX_IMAGE_PIXELS / 1e6).toFixed(0)} megapixels); scale it down and upload it again`,
      undefined,
      "EXTRACTION_TOO_LARGE",
    );
  }
}

/**
 * OCR text as sections: its first line is the heading when it is short and more text follows
 * (a notice's title), so chunks and citations name it.
 */
export function ocrSections(
  text: string,
  page: number | null,
  carried: string | null,
): { heading: string | null; text: string; pageStart: number | null; pageEnd: number | null } {
  const lines = text.split("\n");
  const first = lines.findIndex((line) => line.trim() !== "");
  if (first === -1) return { heading: carried, text: "", pageStart: page, pageEnd: page };
  const candidate = lines[first]!.trim();
  const rest = lines.slice(first + 1).join("\n");
  const headingLike =
    candidate.length <= 80 && candidate.split(/\s+/).length <= 10 && /\p{L}/u.test(candidate) && !/[.,;:]$/.test(candidate) && rest.trim() !== "";
  return headingLike ? { heading: candidate, text: rest, pageStart: page, pageEnd: page } : { heading: carried, text, pageStart: page, pageEnd: page };
}
