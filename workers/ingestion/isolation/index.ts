/**
 * The worker's way to read and chunk a document: both run in a limited thread (thread-pool.ts),
 * with the limits taken from the configuration. `log` is the worker's own logger (`deps.log`),
 * which the pool writes to when a thread fails outside any task.
 */
import type { Logger } from "pino";
import type { Config } from "../../../lib/config";
import type { DocumentFormat } from "../../../lib/document-formats";
import type { Chunk, ChunkingOptions } from "../chunking";
import type { ExtractedDocument, ExtractionLimits } from "../extract/types";
import { runInThread, type ThreadTiming, warmThreadPool } from "./thread-pool";

export { closeThreadPool, ExtractionThreadError, ExtractionThreadsUnavailable, probeThreadPool, type ThreadTiming } from "./thread-pool";

export function extractionLimits(config: Config): ExtractionLimits {
  return {
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
    zipMaxUncompressedBytes: config.ZIP_MAX_UNCOMPRESSED_BYTES,
    zipMaxEntries: config.ZIP_MAX_ENTRIES,
    xlsxMaxCells: config.XLSX_MAX_CELLS,
    ocr: {
      languages: config.OCR_LANGUAGES,
      maxPages: config.OCR_MAX_PAGES,
      pageTimeoutMs: config.OCR_PAGE_TIMEOUT_MS,
      timeoutMs: config.OCR_TIMEOUT_MS,
      memoryMb: config.OCR_MEMORY_MB,
      tesseract: config.OCR_TESSERACT_BIN,
      pdftoppm: config.OCR_PDFTOPPM_BIN,
    },
  };
}

export function chunkingOptions(config: Config): ChunkingOptions {
  return {
    strategy: config.CHUNK_STRATEGY,
    chunkTokens: config.CHUNK_TOKENS,
    overlapTokens: config.CHUNK_OVERLAP_TOKENS,
    maxChunks: config.INGEST_MAX_CHUNKS,
  };
}

/** Warms every extraction thread with the settings the documents will use (see warm-up.ts); resolves when done, never rejects. */
export function warmExtractionThreads(config: Config, log: Logger): Promise<void> {
  return warmThreadPool(config, { options: chunkingOptions(config) }, log);
}

export function extractInThread(
  bytes: Buffer,
  format: DocumentFormat,
  config: Config,
  log: Logger,
  signal?: AbortSignal,
  timing?: ThreadTiming,
): Promise<ExtractedDocument> {
  return runInThread("extract", { bytes, format, limits: extractionLimits(config) }, config, log, signal, timing);
}

export function chunkInThread(
  document: ExtractedDocument,
  options: ChunkingOptions,
  config: Config,
  log: Logger,
  signal?: AbortSignal,
  timing?: ThreadTiming,
): Promise<Chunk[]> {
  return runInThread("chunk", { document, options }, config, log, signal, timing);
}
