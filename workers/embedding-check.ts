/**
 * Start-up check that the embedding model, EMBEDDING_DIMENSIONS and the database column agree.
 * A mismatch would store vectors no search can compare, so the worker refuses to start; an
 * unreachable endpoint is only a warning (it may come up later, and jobs retry). Every fallback
 * embedding provider is probed on its own and must answer the same width.
 */
import type { Logger } from "pino";
import type { Config } from "../lib/config";
import type { Db } from "../db/knex";
import { databaseVectorDimensions } from "../db/queries/vector-columns";
import type { LlmClient } from "./llm/client";

export class EmbeddingDimensionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddingDimensionError";
  }
}

export async function checkEmbeddingDimensions(config: Pick<Config, "embedding">, db: Db, llm: LlmClient, log: Logger): Promise<void> {
  const column = await databaseVectorDimensions(db);
  if (column !== null && column !== config.embedding.EMBEDDING_DIMENSIONS) {
    throw new EmbeddingDimensionError(
      `EMBEDDING_DIMENSIONS is ${config.embedding.EMBEDDING_DIMENSIONS} but the database column document_chunks.embedding is vector(${column}). ` +
        `Set EMBEDDING_DIMENSIONS=${column}, or migrate the column and re-embed every document (npm run reembed -- --alter-dimensions).`,
    );
  }
  for (const [index, provider] of llm.embeddingProviders.entries()) {
    let probe: number[] | undefined;
    try {
      probe = await llm.probeEmbedding(provider);
    } catch (error) {
      log.warn({ err: error, provider: provider.label, model: provider.model }, "embedding endpoint unreachable at start-up; ingestion and search will retry");
      continue;
    }
    if (!probe || probe.length === config.embedding.EMBEDDING_DIMENSIONS) {
      if (index > 0 && provider.model !== config.embedding.EMBEDDING_MODEL)
        log.warn(
          { provider: provider.label, model: provider.model, primary: config.embedding.EMBEDDING_MODEL },
          "the fallback embedding model is another model of the same width: its question vectors will not match the stored chunks well",
        );
      continue;
    }
    if (index === 0) {
      throw new EmbeddingDimensionError(
        `The embedding model ${config.embedding.EMBEDDING_MODEL} returns vectors of ${probe.length} dimensions but EMBEDDING_DIMENSIONS is ${config.embedding.EMBEDDING_DIMENSIONS}` +
          `${column !== null ? ` (database column: vector(${column}))` : ""}. Use a model with ${config.embedding.EMBEDDING_DIMENSIONS} dimensions, ` +
          `or set EMBEDDING_DIMENSIONS=${probe.length} on a fresh database (or migrate the column and re-embed).`,
      );
    }
    // A fallback's vectors go into (and are searched against) the same column: only the same width can stand in.
    throw new EmbeddingDimensionError(
      `The fallback embedding provider ${provider.label} (EMBEDDING_FALLBACK_PROVIDERS[${index - 1}], model ${provider.model}) returns vectors of ` +
        `${probe.length} dimensions but EMBEDDING_DIMENSIONS is ${config.embedding.EMBEDDING_DIMENSIONS}. A fallback must answer the same width as the ` +
        `primary: give it the same model, or remove it from EMBEDDING_FALLBACK_PROVIDERS.`,
    );
  }
}
