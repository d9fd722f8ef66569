/**
 * One entry point from bytes to sections. The format must already be settled by `detectFormat`
 * (name and content agree); every failure leaves here as an ExtractionError a user can read.
 * This runs wherever it is called: the worker calls it through `isolation/` in a thread with
 * time and memory limits, never on its own event loop.
 */
import type { DocumentFormat } from "../../../lib/document-formats";
import { extractCsv } from "./csv";
import { extractDocx } from "./docx";
import { extractHtml } from "./html";
import { extractImage } from "./image";
import { extractDoc, extractXls } from "./legacy-office";
import { extractMarkdown } from "./markdown";
import { extractPdf } from "./pdf";
import { extractPptx } from "./pptx";
import { extractText } from "./text";
import { extractXlsx } from "./xlsx";
import { DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits } from "./types";

export { ExtractionError, type ExtractedDocument, type ExtractedSection, type ExtractionLimits } from "./types";

type Extractor = (bytes: Buffer, limits: ExtractionLimits) => ExtractedDocument | Promise<ExtractedDocument>;

/** Every accepted format (lib/document-formats.ts) has its extractor: a format added there without one does not compile. */
const EXTRACTORS = {
  pdf: extractPdf,
  docx: extractDocx,
  pptx: extractPptx,
  xlsx: extractXlsx,
  txt: extractText,
  markdown: extractMarkdown,
  html: extractHtml,
  csv: extractCsv,
  doc: extractDoc,
  xls: extractXls,
  png: (bytes, limits) => extractImage("png", bytes, limits),
  jpeg: (bytes, limits) => extractImage("jpeg", bytes, limits),
  tiff: (bytes, limits) => extractImage("tiff", bytes, limits),
  gif: (bytes, limits) => extractImage("gif", bytes, limits),
  webp: (bytes, limits) => extractImage("webp", bytes, limits),
} as const satisfies Record<DocumentFormat, Extractor>;

export async function extractDocument(bytes: Buffer, format: DocumentFormat, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  try {
    return await EXTRACTORS[format](bytes, limits);
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    // A parser bug or an input no one anticipated: still a readable reason, the original kept as cause.
    throw new ExtractionError("The document could not be read; it may be corrupt", error);
  }
}
