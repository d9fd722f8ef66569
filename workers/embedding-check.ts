/**
 * Start-up check that the embedding model, EMBEDDING_DIMENSIONS and the database column agree.
 * A mismatch would store vectors no search can compare, so the worker refuses to start; an
 * unreachable endpoint is only a warning (it may come up later, and jobs retry).
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

export async function checkEmbeddingDimensions(config: Config, db: Db, llm: LlmClient, log: Logger): Promise<void> {
  const column = await databaseVectorDimensions(db);
  if (column !== null && column !== config.EMBEDDING_DIMENSIONS) {
    throw new EmbeddingDimensionError(
      `EMBEDDING_DIMENSIONS is ${config.EMBEDDING_DIMENSIONS} but the database column document_chunks.embedding is vector(${column}). ` +
        `Set EMBEDDING_DIMENSIONS=${column}, or migrate the column and re-embed every document (npm run reembed -- --alter-dimensions).`,
    );
  }
  let probe: number[] | undefined;
  try {
    [probe] = await llm.embed(["dimension probe"], "query");
  } catch (error) {
    log.warn({ err: error, model: config.EMBEDDING_MODEL }, "embedding endpoint unreachable at start-up; ingestion and search will retry");
    return;
  }
  if (probe && probe.length !== config.EMBEDDING_DIMENSIONS) {
    throw new EmbeddingDimensionError(
      `The embedding model ${config.EMBEDDING_MODEL} returns vectors of ${probe.length} dimensions but EMBEDDING_DIMENSIONS is ${config.EMBEDDING_DIMENSIONS}` +
        `${column !== null ? ` (database column: vector(${column}))` : ""}. Use a model with ${config.EMBEDDING_DIMENSIONS} dimensions, ` +
        `or set EMBEDDING_DIMENSIONS=${probe.length} on a fresh database (or migrate the column and re-embed).`,
    );
  }
}
