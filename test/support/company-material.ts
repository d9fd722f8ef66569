/**
 * The eval's company material (eval/company/) indexed into an organisation the way ingestion
 * does it, without the workers: markdown extracted and chunked with the ingestion code at the
 * configured chunk settings, each chunk embedded with its title and heading (embedding-text.ts)
 * by the offline model's hashed embeddings, then published through the chunk-draft queries. The
 * database-tier language test then asks hybrid search what `npm run eval` asks through the stack.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { publishChunkDrafts, replaceChunkDrafts, saveDraftEmbeddings } from "../../db/queries/chunk-drafts";
import type { Config } from "../../lib/config";
import { hashedEmbeddings } from "../../offline-model/hashed-embeddings";
import { chunkDocument } from "../../workers/ingestion/chunking";
import { embeddingText } from "../../workers/ingestion/embedding-text";
import { extractMarkdown } from "../../workers/ingestion/extract/markdown";
import type { LlmClient } from "../../workers/llm/client";
import type { DatabaseSuite } from "./database";

/** A model client that only embeds, as the offline model does: hashed bag-of-words vectors. */
export function hashedEmbedder(dimensions: number): LlmClient {
  return { embed: async (texts: string[]) => hashedEmbeddings(texts, dimensions) } as unknown as LlmClient;
}

/** Indexes each file of `dir` (paths under it) into `orgId`; returns file → document id. */
export async function indexMaterial(lane: DatabaseSuite, orgId: string, dir: string, files: string[]): Promise<Map<string, string>> {
  const config: Config = lane.config;
  const ids = new Map<string, string>();
  for (const file of files) {
    const extracted = extractMarkdown(readFileSync(join(dir, file)));
    const title = extracted.title ?? file;
    const document = await lane.build.buildDocument(orgId, {
      title,
      filename: file.split("/").at(-1),
      mime_type: "text/markdown",
      status: "EMBEDDING",
      ingest_generation: 1,
    });
    const run = { orgId, documentId: document.id, generation: 1 };
    const chunks = chunkDocument(extracted, {
      strategy: config.ingestion.CHUNK_STRATEGY,
      chunkTokens: config.ingestion.CHUNK_TOKENS,
      overlapTokens: config.ingestion.CHUNK_OVERLAP_TOKENS,
    });
    await replaceChunkDrafts(
      lane.db,
      run,
      chunks.map((chunk) => ({
        position: chunk.position,
        content: chunk.content,
        tokenCount: chunk.tokenCount,
        metadata: { heading: chunk.heading, position: chunk.position },
      })),
    );
    const vectors = hashedEmbeddings(
      chunks.map((chunk) => embeddingText(title, chunk.heading, chunk.content)),
      config.embedding.EMBEDDING_DIMENSIONS,
    );
    await saveDraftEmbeddings(
      lane.db,
      run,
      chunks.map((chunk, i) => ({ position: chunk.position, vector: vectors[i]! })),
    );
    if (!(await publishChunkDrafts(lane.db, run, chunks.length))) throw new Error(`${file} was not published`);
    ids.set(file, document.id);
  }
  return ids;
}
