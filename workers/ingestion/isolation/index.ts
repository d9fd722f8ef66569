/**
 * The worker's way to read and chunk a document: both run in a limited thread (thread-pool.ts),
 * with the limits taken from the configuration.
 */
import type { Config } from "../../../lib/config";
import type { DocumentFormat } from "../../../lib/document-formats";
import type { Chunk, ChunkingOptions } from "../chunking";
import type { ExtractedDocument, ExtractionLimits } from "../extract/types";
import { runInThread } from "./thread-pool";

export { closeThreadPool, ExtractionThreadError, ExtractionThreadsUnavailable, probeThreadPool } from "./thread-pool";

export function extractionLimits(config: Config): ExtractionLimits {
  return {
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
    zipMaxUncompressedBytes: config.ZIP_MAX_UNCOMPRESSED_BYTES,
    zipMaxEntries: config.ZIP_MAX_ENTRIES,
  };
}

export function extractInThread(bytes: Buffer, format: DocumentFormat, config: Config, signal?: AbortSignal): Promise<ExtractedDocument> {
  return runInThread("extract", { bytes, format, limits: extractionLimits(config) }, config, signal);
}

export function chunkInThread(document: ExtractedDocument, options: ChunkingOptions, config: Config, signal?: AbortSignal): Promise<Chunk[]> {
  return runInThread("chunk", { document, options }, config, signal);
}
