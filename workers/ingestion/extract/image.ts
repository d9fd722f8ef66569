/**
 * Images — PNG, JPEG, TIFF, GIF, WebP: a photo of a notice, a screenshot, a scanned page saved as
 * an image, a fax. Read by OCR (ocr.ts; Debian's tesseract links leptonica with libtiff, libgif
 * and libwebp, so it reads each of them itself) as one section, its first short line the heading
 * and the document's title. The declared canvas is checked before any decoder sees it
 * (image-dimensions.ts), so a small file cannot unpack to gigabytes of pixels.
 */
import { checkImageSize } from "./image-dimensions";
import { OcrSession, ocrSections } from "./ocr";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractionLimits } from "./types";

const NO_TEXT = "OCR found no text in the image";

export type ImageFormat = "png" | "jpeg" | "tiff" | "gif" | "webp";

export async function extractImage(format: ImageFormat, bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  checkImageSize(bytes);
  const session = await OcrSession.start(limits);
  const section = ocrSections(await session.readImage(bytes), null, null);
  return buildDocument(format, [section], null, NO_TEXT, limits, section.heading);
}
