/**
 * The worker's way to read and chunk a document: both run in a limited thread (thread-pool.ts),
 * with the limits taken from the configuration. `log` is the worker's own logger (`deps.log`),
 * which the pool writes to when a thread fails outside any task.
 */
import type { Logger } from "pino";
import type { ImportFormat } from "../../../lib/catalog-import-file";
import type { PackedSplit } from "../../../lib/catalog-import-packed";
import type { Config } from "../../../lib/config";
import type { DocumentFormat } from "../../../lib/document-formats";
import type { Chunk, ChunkingOptions } from "../chunking";
import { resolveProgram } from "../extract/bounded-process";
import type { ExtractedDocument, ExtractionLimits } from "../extract/types";
import { runInThread, type ThreadTiming, warmThreadPool } from "./thread-pool";

export { closeThreadPool, ExtractionThreadError, ExtractionThreadsUnavailable, probeThreadPool, type ThreadTiming } from "./thread-pool";

export function extractionLimits(config: Pick<Config, "ingestion">): ExtractionLimits {
  return {
    maxTextChars: config.ingestion.EXTRACT_MAX_TEXT_CHARS,
    zipMaxUncompressedBytes: config.ingestion.ZIP_MAX_UNCOMPRESSED_BYTES,
    zipMaxEntries: config.ingestion.ZIP_MAX_ENTRIES,
    xlsxMaxCells: config.ingestion.XLSX_MAX_CELLS,
    ocr: {
      languages: config.ingestion.OCR_LANGUAGES,
      maxPages: config.ingestion.OCR_MAX_PAGES,
      pageTimeoutMs: config.ingestion.OCR_PAGE_TIMEOUT_MS,
      timeoutMs: config.ingestion.OCR_TIMEOUT_MS,
      memoryMb: config.ingestion.OCR_MEMORY_MB,
      tesseract: config.ingestion.OCR_TESSERACT_BIN,
      pdftoppm: config.ingestion.OCR_PDFTOPPM_BIN,
    },
  };
}

export function chunkingOptions(config: Pick<Config, "ingestion">): ChunkingOptions {
  return {
    strategy: config.ingestion.CHUNK_STRATEGY,
    chunkTokens: config.ingestion.CHUNK_TOKENS,
    overlapTokens: config.ingestion.CHUNK_OVERLAP_TOKENS,
    maxChunks: config.ingestion.INGEST_MAX_CHUNKS,
  };
}

/**
 * Warms every extraction thread with the settings the documents will use (see warm-up.ts); resolves when done, never rejects.
 * Also says once, at start-up, when OCR is not installed: the worker runs without it, and only
 * scanned PDFs and images fail (OCR_UNAVAILABLE), so an operator should hear it before an upload does.
 */
export function warmExtractionThreads(config: Pick<Config, "ingestion">, log: Logger): Promise<void> {
  const missing = [config.ingestion.OCR_TESSERACT_BIN, config.ingestion.OCR_PDFTOPPM_BIN].filter((program) => resolveProgram(program) === null);
  if (missing.length > 0) {
    log.warn(
      { component: "extraction-threads", missing },
      "OCR is not installed: scanned PDFs and image uploads will fail OCR_UNAVAILABLE (Debian: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils)",
    );
  }
  return warmThreadPool(config.ingestion, { options: chunkingOptions(config) }, log);
}

export function extractInThread(
  bytes: Buffer,
  format: DocumentFormat,
  config: Pick<Config, "ingestion">,
  log: Logger,
  signal?: AbortSignal,
  timing?: ThreadTiming,
): Promise<ExtractedDocument> {
  return runInThread("extract", { bytes, format, limits: extractionLimits(config) }, config.ingestion, log, signal, timing);
}

export function chunkInThread(
  document: ExtractedDocument,
  options: ChunkingOptions,
  config: Pick<Config, "ingestion">,
  log: Logger,
  signal?: AbortSignal,
  timing?: ThreadTiming,
): Promise<Chunk[]> {
  return runInThread("chunk", { document, options }, config.ingestion, log, signal, timing);
}

/**
 * Splits a bulk catalog import's file in a thread of the same pool: a hostile file (millions of
 * lines, one huge JSON array, deep nesting) costs that thread seconds, never the event loop that
 * streams every organisation's answers and renews their jobs' locks. Bound by EXTRACT_TIMEOUT_MS
 * and EXTRACT_MEMORY_MB like a document (ExtractionError EXTRACTION_TIMEOUT / EXTRACTION_TOO_LARGE).
 */
export function splitImportInThread(parts: Buffer[], format: ImportFormat, config: Pick<Config, "ingestion">, log: Logger): Promise<PackedSplit> {
  return runInThread("splitImport", { parts, format }, config.ingestion, log);
}
