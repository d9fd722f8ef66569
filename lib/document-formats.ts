/**
 * Which uploaded files we accept as documents, decided by name AND content. The extension alone
 * is a claim, not a fact: an executable renamed `.pdf` or a PDF renamed `.txt` must be refused
 * before a parser (or a later reader) trusts it, so every format has to be confirmed by its bytes.
 */
import { extname } from "node:path";
import { fileTypeFromBuffer } from "file-type";

export type DocumentFormat = "pdf" | "docx" | "pptx" | "txt" | "markdown" | "html" | "csv";

/** Extensions we accept, lower-case with the dot; for upload forms and error messages. */
export const ALLOWED_EXTENSIONS = [".pdf", ".docx", ".pptx", ".txt", ".md", ".markdown", ".html", ".htm", ".csv"] as const;

/** The MIME type we store and serve each format as (not whatever the browser claimed). */
export const MIME_TYPES: Record<DocumentFormat, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  txt: "text/plain",
  markdown: "text/markdown",
  html: "text/html",
  csv: "text/csv",
};

const FORMAT_BY_EXTENSION: Record<(typeof ALLOWED_EXTENSIONS)[number], DocumentFormat> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".pptx": "pptx",
  ".txt": "txt",
  ".md": "markdown",
  ".markdown": "markdown",
  ".html": "html",
  ".htm": "html",
  ".csv": "csv",
};

/** file-type results that are themselves text (XHTML starts with `<?xml`, a .txt may hold a VTT). */
const TEXTUAL_DETECTIONS = new Set(["xml", "ics", "vcf", "vtt"]);

/** The format an extension claims, or null when we do not accept that extension at all. */
export function formatFromFilename(filename: string): DocumentFormat | null {
  const extension = extname(filename).toLowerCase();
  return (FORMAT_BY_EXTENSION as Record<string, DocumentFormat>)[extension] ?? null;
}

/**
 * The document's format when the extension is one we accept and the content agrees with it;
 * otherwise null. Text formats must be valid UTF-8 without NUL bytes and carry no binary signature.
 */
export async function detectFormat(bytes: Buffer, filename: string): Promise<DocumentFormat | null> {
  const claimed = formatFromFilename(filename);
  if (!claimed) return null;
  const detected = await fileTypeFromBuffer(bytes);

  switch (claimed) {
    case "pdf":
      // Illustrator files are PDFs too; anything else (exe, zip…) with a stray %PDF- is not.
      return hasPdfMagic(bytes) && (!detected || detected.ext === "pdf" || detected.ext === "ai") ? "pdf" : null;
    case "docx":
    case "pptx":
      return detected?.ext === claimed ? claimed : null;
    default: {
      if (detected && !detected.mime.startsWith("text/") && !TEXTUAL_DETECTIONS.has(detected.ext)) return null;
      return isUtf8Text(bytes) ? claimed : null;
    }
  }
}

/** The spec lets `%PDF-` start anywhere in the first 1024 bytes (some writers prepend junk). */
function hasPdfMagic(bytes: Buffer): boolean {
  return bytes.subarray(0, 1024).includes("%PDF-", 0, "latin1");
}

/** Valid UTF-8 with no NUL byte: UTF-16 and binary files both fail one of the two. */
export function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
