/**
 * OCR for scanned PDF pages and uploaded images (PNG, JPEG, TIFF, GIF, WebP: leptonica reads them all): Debian's tesseract, run as a child
 * process of the extraction thread, the PDF page rendered to PNG by poppler's pdftoppm first.
 * Every child gets the thread's limits in its own form, because a thread cannot bound another
 * process: a wall-clock limit (killed past OCR_PAGE_TIMEOUT_MS or what is left of
 * OCR_TIMEOUT_MS), an address-space and CPU-time limit set by prlimit (so a child whose thread
 * was terminated still dies by itself), and one OpenMP thread (one core per extraction thread,
 * as EXTRACT_THREADS promises). Bytes travel through pipes: no temporary files to clean up.
 * A server without tesseract still starts and reads every other format; a document that needs
 * OCR then fails OCR_UNAVAILABLE, saying what to install.
 */
import { resolveProgram, runBounded } from "./bounded-process";
import { DEFAULT_OCR_SETTINGS, ExtractionError, type ExtractionLimits, type OcrSettings } from "./types";

/**
 * pdftoppm renders a page so its longer side has this many pixels: about 215 dpi for A4 or
 * Letter (scanners store 200–300 dpi), and bounded for a page drawn a metre wide. Measured on
 * the scanned fixture: 3,300 px (300 dpi) cost 1.25 s of CPU a page, 2,500 px 0.83 s, same text.
 */
export const RENDER_LONGER_SIDE_PX = 2500;

const INSTALL_HINT = "an operator can install it (Debian: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils)";

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

  /** The text tesseract reads in an image (every page of a multi-page TIFF, the first frame of a GIF). */
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
