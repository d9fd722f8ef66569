/**
 * The canvas an image declares, read from its header before any decoder sees it, so a small file
 * cannot unpack to gigabytes of pixels in tesseract (leptonica decodes the whole canvas). Every
 * image format we accept is here; a header we cannot read is refused as corrupt.
 */
import { ExtractionError } from "./types";

/** Largest image OCR is given (pixels): a 5 MB PNG can declare a 100 000 × 100 000 canvas, which decodes to 10 GB. */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** Pages of a multi-page TIFF read at most: tesseract reads every page, each bounded like a PDF page. */
export const MAX_TIFF_PAGES = 50;

interface Size {
  width: number;
  height: number;
}

function pngSize(bytes: Buffer): Size | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString("latin1", 12, 16) === "IHDR") {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  return null;
}

function jpegSize(bytes: Buffer): Size | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
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
  return null;
}

/** GIF's logical screen; leptonica reads the first frame, which the screen bounds. */
function gifSize(bytes: Buffer): Size | null {
  const signature = bytes.toString("latin1", 0, 6);
  if (bytes.length < 10 || (signature !== "GIF87a" && signature !== "GIF89a")) return null;
  return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
}

/** WebP's canvas from its first chunk: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`). */
function webpSize(bytes: Buffer): Size | null {
  if (bytes.length < 30 || bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WEBP") return null;
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8 ") return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return null;
}

/** Every page of a (classic, not Big-) TIFF: the ImageWidth and ImageLength of each IFD, following the chain. */
function tiffPages(bytes: Buffer): Size[] | null {
  if (bytes.length < 8) return null;
  const order = bytes.toString("latin1", 0, 2);
  if (order !== "II" && order !== "MM") return null;
  const little = order === "II";
  const u16 = (at: number) => (little ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
  const u32 = (at: number) => (little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  if (u16(2) !== 42) return null;
  const pages: Size[] = [];
  const seen = new Set<number>();
  let offset = u32(4);
  while (offset !== 0) {
    // Past the page cap, a file built to be long (refused by its count); a chain that loops or runs past the end, a corrupt one.
    if (pages.length > MAX_TIFF_PAGES) return pages;
    if (seen.has(offset) || offset + 2 > bytes.length) return null;
    seen.add(offset);
    const entries = u16(offset);
    if (offset + 2 + entries * 12 + 4 > bytes.length) return null;
    let width = 0;
    let height = 0;
    for (let i = 0; i < entries; i++) {
      const entry = offset + 2 + i * 12;
      const tag = u16(entry);
      if (tag !== 256 && tag !== 257) continue;
      const value = u16(entry + 2) === 3 ? u16(entry + 8) : u32(entry + 8);
      if (tag === 256) width = value;
      else height = value;
    }
    pages.push({ width, height });
    offset = u32(offset + 2 + entries * 12);
  }
  return pages.length > 0 ? pages : null;
}

/** The pages an image declares (one, except for a multi-page TIFF), or null when its header is not one we know. */
export function imagePages(bytes: Buffer): Size[] | null {
  const single = pngSize(bytes) ?? jpegSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes);
  return single ? [single] : tiffPages(bytes);
}

/** Refuses an image whose declared canvas would decode to more than MAX_IMAGE_PIXELS (or a TIFF of too many pages), before any decoder sees it. */
export function checkImageSize(bytes: Buffer): void {
  const pages = imagePages(bytes);
  if (!pages || pages.some((page) => page.width === 0 || page.height === 0)) throw new ExtractionError("The image is corrupt or could not be read");
  if (pages.length > MAX_TIFF_PAGES) {
    throw new ExtractionError(
      `The TIFF has more than ${MAX_TIFF_PAGES} pages, more than OCR reads in one file; split it and upload the parts`,
      undefined,
      "EXTRACTION_TOO_LARGE",
    );
  }
  for (const size of pages) {
    if (size.width * size.height > MAX_IMAGE_PIXELS) {
      throw new ExtractionError(
        `The image is ${size.width} × ${size.height} pixels, more than OCR reads (${(MAX_IMAGE_PIXELS / 1e6).toFixed(0)} megapixels); scale it down and upload it again`,
        undefined,
        "EXTRACTION_TOO_LARGE",
      );
    }
  }
}
