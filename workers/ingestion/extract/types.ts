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
}

/**
 * A document we cannot read. The message is written for the person who uploaded it (it is shown
 * to them as is), so it names the problem in plain words and never carries a library's stack.
 */
export class ExtractionError extends Error {
  constructor(
    message: string,
    /** The library's own error, for logs only. */
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "ExtractionError";
  }
}

export const NO_TEXT_MESSAGE = "The document contains no extractable text";

/** Tidies a section body: unified newlines, no trailing spaces, at most one blank line in a row. */
export function normalizeText(text: string): string {
  // Postgres text cannot hold NUL; some PDFs and Word files carry them.
  return text
    .replace(/\u0000/g, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[^\S\n]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
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
): ExtractedDocument {
  const kept = sections
    .map((section) => ({ ...section, heading: section.heading?.replace(/\u0000/g, "").trim() || null, text: normalizeText(section.text) }))
    .filter((section) => section.heading !== null || section.text !== "");
  const fullText = kept
    .map((section) => [section.heading, section.text].filter((part) => part).join("\n\n"))
    .join("\n\n");
  if (fullText.trim() === "") throw new ExtractionError(emptyMessage);
  return { format, fullText, sections: kept, pageCount };
}
