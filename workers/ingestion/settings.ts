/**
 * Reading uploaded documents: threads, OCR, the bounds that stop a hostile file, and how text is cut into chunks.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const ingestionSettings = defineSection({
  environment: {
    OCR_LANGUAGES: z
      .string()
      .regex(/^[a-z_]+(\+[a-z_]+)*$/, "tesseract language codes joined by +, e.g. eng+spa")
      .default("eng+spa")
      .describe(
        "Languages OCR reads scanned PDF pages and PNG/JPEG images in (tesseract codes joined by `+`); each needs its Debian `tesseract-ocr-<code>` package, else those documents fail `OCR_UNAVAILABLE`.",
      ),
    EXTRACT_THREADS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe(
        "Extraction threads per worker process: files read (and chunked) at the same time, off the event loop; more wait their turn. " +
          "One keeps a hostile file to one core; on 2 shared cores a second gave no more pages/s (bench/optimisations.md §13). A worker that only ingests, on cores of its own: its core count.",
      ),
  },
  why: {
    OCR_LANGUAGES: "Your scanned documents are in other languages than English and Spanish (install their tesseract packages).",
    EXTRACT_THREADS: "A worker that only ingests, on cores of its own: one thread per core.",
  },
  tunables: {
    // Chunk sizes measured on the evaluation corpus (eval/tuning.md: 400/50 against 200/40); the extraction and OCR bounds stop the hostile
    // files of test/workers/ingestion/hostile-files.test.ts (docs/security.md, hostile documents).
    CHUNK_STRATEGY: z.enum(["recursive", "markdown", "token"]).default("recursive").describe("How documents are cut into chunks."),
    CHUNK_TOKENS: z.coerce.number().int().min(50).max(8000).default(400).describe("Target chunk size in tokens."),
    CHUNK_OVERLAP_TOKENS: z.coerce.number().int().min(0).max(2000).default(50).describe("Overlap between neighbouring chunks, in tokens."),
    EMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(32).describe("Chunks per embeddings request."),
    INGEST_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(10 * 60_000)
      .describe("A document still not indexed after this long (10 min) is marked `FAILED` (`INGEST_TIMEOUT`)."),
    EXTRACT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(60_000)
      .describe("Wall-clock limit for reading one file in its thread; past it the thread is killed and the document fails `EXTRACTION_TIMEOUT`."),
    EXTRACT_MEMORY_MB: z.coerce
      .number()
      .int()
      .min(32)
      .max(16_384)
      .default(512)
      .describe("Heap limit of each extraction thread; a file that needs more fails `EXTRACTION_TOO_LARGE`."),
    EXTRACT_MAX_TEXT_CHARS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(5_000_000)
      .describe("Characters of text one document may produce; more fails `EXTRACTION_TOO_LARGE`."),
    INGEST_MAX_CHUNKS: z.coerce.number().int().min(1).default(5_000).describe("Chunks one document may produce; more fails `EXTRACTION_TOO_LARGE`."),
    ZIP_MAX_UNCOMPRESSED_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(200 * 1024 * 1024)
      .describe("Bytes a DOCX/PPTX/XLSX may inflate to (200 MB): declared sizes are checked first, actual bytes counted while inflating."),
    ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000).describe("Entries a DOCX/PPTX/XLSX may hold."),
    XLSX_MAX_CELLS: z.coerce
      .number()
      .int()
      .min(1)
      .default(500_000)
      .describe("Non-empty cells one XLSX workbook may hold across its sheets; more fails `EXTRACTION_TOO_LARGE`."),
    OCR_MAX_PAGES: z.coerce
      .number()
      .int()
      .min(1)
      .default(50)
      .describe("Pages without a text layer one PDF may have for OCR; more fails `EXTRACTION_TOO_LARGE` before any page is read."),
    OCR_PAGE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(60_000)
      .describe(
        "Wall-clock limit for rendering and reading one page or image by OCR; past it the OCR process is killed and the document fails `EXTRACTION_TIMEOUT`.",
      ),
    OCR_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(5 * 60_000)
      .describe(
        "Wall-clock limit for all OCR of one document (5 min); it replaces `EXTRACT_TIMEOUT_MS` once a file turns out to need OCR. Keep it below `INGEST_TIMEOUT_MS`.",
      ),
    OCR_MEMORY_MB: z.coerce
      .number()
      .int()
      .min(64)
      .max(16_384)
      .default(1024)
      .describe("Address-space limit (prlimit) of each OCR process (tesseract, pdftoppm); an image that needs more fails."),
    OCR_TESSERACT_BIN: z
      .string()
      .min(1)
      .default("tesseract")
      .describe("The tesseract program (a name on PATH or a path); missing, scanned documents fail `OCR_UNAVAILABLE` and everything else works."),
    OCR_PDFTOPPM_BIN: z
      .string()
      .min(1)
      .default("pdftoppm")
      .describe("Poppler's pdftoppm, which renders a PDF page without text to an image for OCR (Debian `poppler-utils`)."),
  },
});
