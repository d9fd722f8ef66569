/**
 * From extracted sections to numbered chunks. Every strategy works one section at a time, so no
 * chunk spans two sections (and each keeps its section's heading and pages).
 */
import { countTokens } from "../../llm/tokens";
import { ExtractionError, type ExtractedDocument, type ExtractedSection } from "../extract/types";
import { markdownChunks } from "./markdown";
import { recursiveChunks } from "./recursive";
import { tokenChunks } from "./token";
import type { Chunk, ChunkingOptions, DraftChunk } from "./types";

export type { Chunk, ChunkingOptions } from "./types";

const STRATEGIES: Record<ChunkingOptions["strategy"], (section: ExtractedSection, chunkTokens: number, overlapTokens: number) => DraftChunk[]> = {
  recursive: recursiveChunks,
  markdown: markdownChunks,
  token: tokenChunks,
};

/** Rejects budgets that cannot make progress (overlap as large as the chunk would never advance). */
export function validateChunkingOptions(options: ChunkingOptions): void {
  if (!Number.isInteger(options.chunkTokens) || options.chunkTokens < 1) {
    throw new RangeError(`chunkTokens must be a positive integer, got ${options.chunkTokens}`);
  }
  if (!Number.isInteger(options.overlapTokens) || options.overlapTokens < 0 || options.overlapTokens >= options.chunkTokens) {
    throw new RangeError(`overlapTokens must be an integer from 0 to chunkTokens - 1, got ${options.overlapTokens}`);
  }
  if (!(options.strategy in STRATEGIES)) throw new RangeError(`unknown chunking strategy "${options.strategy}"`);
}

function tooManyChunks(limit: number): ExtractionError {
  return new ExtractionError(
    `The document makes more than ${limit.toLocaleString("en")} chunks (INGEST_MAX_CHUNKS); split the file into smaller documents or ask an operator to raise the limit`,
    undefined,
    "EXTRACTION_TOO_LARGE",
  );
}

export function chunkDocument(doc: ExtractedDocument, options: ChunkingOptions): Chunk[] {
  validateChunkingOptions(options);
  const strategy = STRATEGIES[options.strategy];
  const chunks: Chunk[] = [];
  for (const section of doc.sections) {
    for (const draft of strategy(section, options.chunkTokens, options.overlapTokens)) {
      const content = draft.content.trim();
      if (content === "") continue;
      if (options.maxChunks !== undefined && chunks.length >= options.maxChunks) throw tooManyChunks(options.maxChunks);
      chunks.push({ ...draft, content, position: chunks.length, tokenCount: countTokens(content) });
    }
  }
  return chunks;
}
