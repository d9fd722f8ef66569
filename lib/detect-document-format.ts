/**
 * Which uploaded files we accept as documents, decided by name AND content. The extension alone
 * is a claim, not a fact: an executable renamed `.pdf` or a PDF renamed `.txt` must be refused
 * before a parser (or a later reader) trusts it, so every format has to be confirmed by its bytes
 * (each format's check is in lib/document-formats.ts).
 */
import { fileTypeFromBuffer } from "file-type";
import { DOCUMENT_FORMATS, type DocumentFormat, formatFromFilename } from "./document-formats";

/** file-type results that are themselves text (XHTML starts with `<?xml`, a .txt may hold a VTT). */
const TEXTUAL_DETECTIONS = new Set(["xml", "ics", "vcf", "vtt"]);

/**
 * The document's format when the extension is one we accept and the content agrees with it;
 * otherwise null. Text formats must be valid UTF-8 without NUL bytes and carry no binary signature.
 */
export async function detectFormat(bytes: Buffer, filename: string): Promise<DocumentFormat | null> {
  const claimed = formatFromFilename(filename);
  if (!claimed) return null;
  const detected = await fileTypeFromBuffer(bytes);
  const content = DOCUMENT_FORMATS[claimed].content;
  if (content.kind === "binary") return content.confirms(bytes, detected) ? claimed : null;
  if (detected && !detected.mime.startsWith("text/") && !TEXTUAL_DETECTIONS.has(detected.ext)) return null;
  return isUtf8Text(bytes) ? claimed : null;
}

/** Valid UTF-8 with no NUL byte: UTF-16 and binary files both fail one of the two. */
function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
