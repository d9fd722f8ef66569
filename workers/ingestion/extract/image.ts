/**
 * PNG and JPEG: a photo of a notice, a screenshot, a scanned page saved as an image. Read by OCR
 * (ocr.ts) as one section, its first short line the heading and the document's title. The
 * declared canvas is checked before any decoder sees it, so a small file cannot unpack to
 * gigabytes of pixels.
 */
import { checkImageSize, OcrSession, ocrSections } from "./ocr";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractionLimits } from "./types";

const NO_TEXT = "OCR found no text in the image";

async function extractImage(format: "png" | "jpeg", bytes: Buffer, limits: ExtractionLimits): Promise<ExtractedDocument> {
  checkImageSize(bytes);
  const session = await OcrSession.start(limits);
  const section = ocrSections(await session.readImage(bytes), null, null);
  return buildDocument(format, [section], null, NO_TEXT, limits, section.heading);
}

export const extractPng = (bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) => extractImage("png", bytes, limits);
export const extractJpeg = (bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS) => extractImage("jpeg", bytes, limits);
