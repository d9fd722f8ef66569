/**
 * The document formats we accept, in one table: the name a person reads, the extensions, the MIME
 * type we store and serve, and how the bytes must confirm the name (lib/detect-document-format.ts).
 * Everything else is derived from it: the upload route's refusal and its OpenAPI summary, `GET
 * /api/v1/me`, the web client's message, the lists in README.md and docs/http-api.md (a test keeps
 * those in step), and the extractor map in workers/ingestion/extract/index.ts, which is typed by
 * `DocumentFormat` so a format without an extractor does not compile. Pure data: the browser
 * client imports it too.
 */

/** What `file-type` made of the bytes (only the fields a check reads). */
export interface Detected {
  ext: string;
  mime: string;
}

/**
 * How the bytes confirm a format: `text` formats must be UTF-8 without NUL bytes and carry no binary
 * signature; a binary format says what its bytes must look like. There is no default: a new format
 * without a check does not compile.
 */
export type ContentCheck = { kind: "text" } | { kind: "binary"; confirms: (bytes: Uint8Array, detected: Detected | undefined) => boolean };

export interface FormatSpec {
  label: string;
  extensions: readonly `.${string}`[];
  mime: string;
  content: ContentCheck;
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** The spec lets `%PDF-` start anywhere in the first 1024 bytes (some writers prepend junk). */
export function hasPdfMagic(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  for (let at = 0; at + PDF_MAGIC.length <= head.length; at++) {
    if (PDF_MAGIC.every((byte, i) => head[at + i] === byte)) return true;
  }
  return false;
}

const TEXT: ContentCheck = { kind: "text" };

export const DOCUMENT_FORMATS = {
  pdf: {
    label: "PDF",
    extensions: [".pdf"],
    mime: "application/pdf",
    // Illustrator files are PDFs too; anything else (exe, zip…) with a stray %PDF- is not.
    content: { kind: "binary", confirms: (bytes, detected) => hasPdfMagic(bytes) && (!detected || detected.ext === "pdf" || detected.ext === "ai") },
  },
  docx: {
    label: "DOCX",
    extensions: [".docx"],
    mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "docx" },
  },
  pptx: {
    label: "PPTX",
    extensions: [".pptx"],
    mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "pptx" },
  },
  xlsx: {
    label: "XLSX",
    extensions: [".xlsx"],
    mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "xlsx" },
  },
  // Word and Excel 97–2003: OLE2 containers, read by Debian's antiword and xls2csv (workers/ingestion/extract/legacy-office.ts).
  doc: { label: "DOC", extensions: [".doc"], mime: "application/msword", content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "cfb" } },
  xls: {
    label: "XLS",
    extensions: [".xls"],
    mime: "application/vnd.ms-excel",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "cfb" },
  },
  txt: { label: "TXT", extensions: [".txt"], mime: "text/plain", content: TEXT },
  markdown: { label: "Markdown", extensions: [".md", ".markdown"], mime: "text/markdown", content: TEXT },
  html: { label: "HTML", extensions: [".html", ".htm"], mime: "text/html", content: TEXT },
  csv: { label: "CSV", extensions: [".csv"], mime: "text/csv", content: TEXT },
  // Images are read by OCR (workers/ingestion/extract/ocr.ts).
  png: { label: "PNG", extensions: [".png"], mime: "image/png", content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "png" } },
  jpeg: {
    label: "JPEG",
    extensions: [".jpg", ".jpeg"],
    mime: "image/jpeg",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "jpg" },
  },
  tiff: {
    label: "TIFF",
    extensions: [".tif", ".tiff"],
    mime: "image/tiff",
    content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "tif" },
  },
  gif: { label: "GIF", extensions: [".gif"], mime: "image/gif", content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "gif" } },
  webp: { label: "WebP", extensions: [".webp"], mime: "image/webp", content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "webp" } },
} as const satisfies Record<string, FormatSpec>;

export type DocumentFormat = keyof typeof DOCUMENT_FORMATS;

type Extension = (typeof DOCUMENT_FORMATS)[DocumentFormat]["extensions"][number];

const FORMATS = Object.keys(DOCUMENT_FORMATS) as DocumentFormat[];

/** Extensions we accept, lower-case with the dot; for upload forms and error messages. */
export const ALLOWED_EXTENSIONS: readonly Extension[] = FORMATS.flatMap((format) => DOCUMENT_FORMATS[format].extensions);

/** The formats as a person reads them: "PDF, DOCX, PPTX, XLSX, DOC, XLS, TXT, Markdown, HTML, CSV, PNG, JPEG, TIFF, GIF, WebP". */
export const UPLOAD_FORMATS_TEXT = FORMATS.map((format) => DOCUMENT_FORMATS[format].label).join(", ");

/** The MIME type we store and serve each format as (not whatever the browser claimed). */
export const MIME_TYPES = Object.fromEntries(FORMATS.map((format) => [format, DOCUMENT_FORMATS[format].mime])) as Record<DocumentFormat, string>;

/** The format an extension claims, or null when we do not accept that extension at all. */
export function formatFromFilename(filename: string): DocumentFormat | null {
  const dot = filename.lastIndexOf(".");
  const base = filename.lastIndexOf("/");
  if (dot <= base + 1) return null; // no extension, or a dotfile such as ".pdf"
  const extension = filename.slice(dot).toLowerCase();
  return FORMATS.find((format) => (DOCUMENT_FORMATS[format].extensions as readonly string[]).includes(extension)) ?? null;
}
