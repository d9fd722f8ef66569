/** Plain text: one section, no headings or pages to recover. */
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits } from "./types";

/** Decodes UTF-8 (dropping a BOM); other encodings are refused rather than turned into mojibake. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new ExtractionError("The file is not valid UTF-8 text; save it as UTF-8 and upload it again", error);
  }
}

export function extractText(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): ExtractedDocument {
  return buildDocument("txt", [{ heading: null, text: decodeUtf8(bytes), pageStart: null, pageEnd: null }], null, undefined, limits);
}
