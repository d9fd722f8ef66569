/**
 * What every format extractor returns: plain text cut into sections that remember where they
 * came from (heading, page or slide), so chunks and citations can point a learner back to them.
 */
import type { DocumentFormat } from "../../../lib/document-formats";

export interface ExtractedSection {
  /** The section's heading text (never repeated inside `text`), or null when it has none. */
  heading: string | null;
  text: string;
  /** 1-based page (PDF) or slide (PPTX) number; null for formats without pages. */
  pageStart: number | null;
  pageEnd: number | null;
}

export interface ExtractedDocument {
  format: DocumentFormat;
  /** Every section as `heading` line + blank line + text, sections separated by blank lines. */
  fullText: string;
  sections: ExtractedSection[];
  /** Pages (PDF) or slides (PPTX); null for formats without pages. */
  pageCount: number | null;
  /**
   * The title the document gives itself (HTML `<title>` or first h1, PDF or Office metadata, the
   * first heading), so it is not known by its file name; null when it names none.
   */
  title?: string | null;
}

/** Why a document could not be read; stored as `documents.error_code` so clients can act on it. */
export type ExtractionErrorCode =
  | "EXTRACTION_FAILED"
  | "EXTRACTION_TIMEOUT"
  | "EXTRACTION_TOO_LARGE"
  | "EXTRACTION_UNSUPPORTED"
  /** A DOCX/PPTX whose part names collide (duplicates, case or Unicode variants): readers disagree on which part is meant. */
  | "EXTRACTION_AMBIGUOUS_ARCHIVE"
  /** A scanned page or an image needs OCR, and this server has no tesseract (or lacks a configured language's data). */
  | "OCR_UNAVAILABLE"
  /** A legacy Office file (.doc, .xls) needs its converter (antiword, catdoc's xls2csv), and this server does not have it. */
  | "CONVERTER_UNAVAILABLE";

/**
 * A document we cannot read. The message is written for the person who uploaded it (it is shown
 * to them as is), so it names the problem in plain words and never carries a library's stack.
 */
export class ExtractionError extends Error {
  constructor(
    message: string,
    /** The library's own error, for logs only. */
    override readonly cause?: unknown,
    readonly code: ExtractionErrorCode = "EXTRACTION_FAILED",
  ) {
    super(message);
    this.name = "ExtractionError";
  }
}

/**
 * Limits on what one document may expand to. Extractors check them as they go, so an input built
 * to explode (a zip bomb, a CSV with huge column names) stops at the limit instead of at the
 * thread's memory ceiling.
 */
export interface ExtractionLimits {
  /** Characters of text the whole document may produce. */
  maxTextChars: number;
  /** Bytes all entries of a DOCX/PPTX may inflate to, declared or actual. */
  zipMaxUncompressedBytes: number;
  /** Entries a DOCX/PPTX may list. */
  zipMaxEntries: number;
  /** Non-empty cells an XLSX workbook may hold (absent: DEFAULT_XLSX_MAX_CELLS). */
  xlsxMaxCells?: number;
  /** Wall-clock limit of one legacy Office converter run (absent: CONVERTER_TIMEOUT_MS in legacy-office.ts). */
  converterTimeoutMs?: number;
  /** How scanned pages and images are read (absent: DEFAULT_OCR_SETTINGS). */
  ocr?: OcrSettings;
  /**
   * Called (in the extraction thread) when a file turns out to need OCR, before the first page is
   * read: the thread's clock then switches from EXTRACT_TIMEOUT_MS to the OCR budget. Not cloned
   * across threads; thread-tasks.ts sets it.
   */
  onOcrStart?: () => void;
}

export interface OcrSettings {
  /** tesseract's `-l`: codes joined by `+`. */
  languages: string;
  maxPages: number;
  pageTimeoutMs: number;
  timeoutMs: number;
  memoryMb: number;
  tesseract: string;
  pdftoppm: string;
}

export const DEFAULT_OCR_SETTINGS: OcrSettings = {
  languages: "eng+spa",
  maxPages: 50,
  pageTimeoutMs: 60_000,
  timeoutMs: 5 * 60_000,
  memoryMb: 1024,
  tesseract: "tesseract",
  pdftoppm: "pdftoppm",
};

export const DEFAULT_XLSX_MAX_CELLS = 500_000;

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxTextChars: 5_000_000,
  zipMaxUncompressedBytes: 200 * 1024 * 1024,
  zipMaxEntries: 10_000,
  xlsxMaxCells: DEFAULT_XLSX_MAX_CELLS,
  ocr: DEFAULT_OCR_SETTINGS,
};

/** The one wording for "past the text cap", naming the setting so an operator knows what to raise. */
export function textTooLarge(limits: ExtractionLimits): ExtractionError {
  return new ExtractionError(
    `The document's text is longer than ${limits.maxTextChars.toLocaleString("en")} characters (EXTRACT_MAX_TEXT_CHARS); split the file into smaller documents or ask an operator to raise the limit`,
    undefined,
    "EXTRACTION_TOO_LARGE",
  );
}

export const NO_TEXT_MESSAGE = "The document contains no extractable text";

/**
 * Tidies a section body: unified newlines, no trailing spaces, at most one blank line in a row.
 * One pass over the characters: the obvious `/[^\S\n]+$/gm` is quadratic on a long run of spaces.
 */
export function normalizeText(text: string): string {
  const lines: string[] = [];
  let blankRun = 0;
  let start = 0;
  const flush = (end: number) => {
    // Postgres text cannot hold NUL; some PDFs and Word files carry them.
    const line = text.slice(start, end).replaceAll("\u0000", "").trimEnd();
    if (line === "") {
      if (++blankRun <= 1) lines.push("");
    } else {
      blankRun = 0;
      lines.push(line);
    }
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 10 && code !== 13) continue;
    flush(i);
    if (code === 13 && text.charCodeAt(i + 1) === 10) i++;
    start = i + 1;
  }
  flush(text.length);
  return lines.join("\n").trim();
}

/**
 * Builds the document from its sections: drops sections with neither heading nor text, fills in
 * `fullText`, and refuses a document whose text is all whitespace.
 */
export function buildDocument(
  format: DocumentFormat,
  sections: ExtractedSection[],
  pageCount: number | null = null,
  emptyMessage: string = NO_TEXT_MESSAGE,
  limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS,
  title: string | null = null,
): ExtractedDocument {
  const kept = sections
    .map((section) => ({ ...section, heading: tidyHeading(section.heading), text: normalizeText(section.text) }))
    .filter((section) => section.heading !== null || section.text !== "");
  const fullText = kept.map((section) => [section.heading, section.text].filter((part) => part).join("\n\n")).join("\n\n");
  if (fullText.trim() === "") throw new ExtractionError(emptyMessage);
  if (fullText.length > limits.maxTextChars) throw textTooLarge(limits);
  return { format, fullText, sections: kept, pageCount, title: tidyHeading(title) };
}

/** Longest heading kept: it is repeated in every chunk's metadata and in citations. */
export const MAX_HEADING_CHARS = 300;

/** A heading on one line, whitespace runs collapsed, NULs dropped, at most MAX_HEADING_CHARS. */
export function tidyHeading(heading: string | null): string | null {
  if (heading === null) return null;
  const tidy = heading.replaceAll("\u0000", "").replace(/\s+/g, " ").trim();
  if (tidy === "") return null;
  return tidy.length > MAX_HEADING_CHARS ? `${tidy.slice(0, MAX_HEADING_CHARS - 1).trimEnd()}…` : tidy;
}
