/**
 * One entry point from bytes to sections. The format must already be settled by `detectFormat`
 * (name and content agree); every failure leaves here as an ExtractionError a user can read.
 */
import type { DocumentFormat } from "../../../lib/document-formats";
import { extractCsv } from "./csv";
import { extractDocx } from "./docx";
import { extractHtml } from "./html";
import { extractMarkdown } from "./markdown";
import { extractPdf } from "./pdf";
import { extractPptx } from "./pptx";
import { extractText } from "./text";
import { type ExtractedDocument, ExtractionError } from "./types";

export { ExtractionError, type ExtractedDocument, type ExtractedSection } from "./types";

const EXTRACTORS: Record<DocumentFormat, (bytes: Buffer) => ExtractedDocument | Promise<ExtractedDocument>> = {
  pdf: extractPdf,
  docx: extractDocx,
  pptx: extractPptx,
  txt: extractText,
  markdown: extractMarkdown,
  html: extractHtml,
  csv: extractCsv,
};

export async function extractDocument(bytes: Buffer, format: DocumentFormat): Promise<ExtractedDocument> {
  try {
    return await EXTRACTORS[format](bytes);
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    // A parser bug or an input no one anticipated: still a readable reason, the original kept as cause.
    throw new ExtractionError("The document could not be read; it may be corrupt", error);
  }
}
