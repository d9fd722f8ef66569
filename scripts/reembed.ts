/**
 * Re-embeds every document after an embedding-model change: `npm run reembed`.
 * Chunks are unchanged, so each document's current chunks are copied into drafts for a new
 * ingestion generation and `ingest-embed` re-vectorises them; search keeps serving the old
 * vectors until each document's swap. With `--alter-dimensions` it first changes the vector
 * columns to EMBEDDING_DIMENSIONS (old vectors are dropped; keyword search still works
 * meanwhile). Workers must be running to do the embedding.
 */
import { parseArgs } from "node:util";
import { getConfig, requireSetting } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { createDb, type Db } from "../db/knex";
import { createRedis } from "../queues/connection";
import { JobProducer } from "../queues/producer";
import { databaseVectorDimensions } from "../workers/embedding-check";

const log = componentLogger("reembed");
const { values } = parseArgs({ options: { "alter-dimensions": { type: "boolean", default: false }, org: { type: "string" } } });

async function alterDimensions(db: Db, dimensions: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw("DROP INDEX IF EXISTS document_chunks_embedding_hnsw");
    await trx.raw(`ALTER TABLE document_chunks ALTER COLUMN embedding TYPE vector(${dimensions}) USING NULL`);
    await trx.raw(`ALTER TABLE document_chunk_drafts ALTER COLUMN embedding TYPE vector(${dimensions}) USING NULL`);
    if (dimensions <= 2000) await trx.raw("CREATE INDEX document_chunks_embedding_hnsw ON document_chunks USING hnsw (embedding vector_cosine_ops)");
  });
}

async function main(): Promise<void> {
  const config = getConfig();
  const db = createDb({ url: requireSetting(config, "DATABASE_URL"), poolMax: 2 });
  const redis = createRedis(requireSetting(config, "REDIS_URL"), "worker");
  const producer = new JobProducer(redis);
  try {
    const column = await databaseVectorDimensions(db);
    if (column !== null && column !== config.EMBEDDING_DIMENSIONS) {
      if (!values["alter-dimensions"]) {
        throw new Error(`The database stores vector(${column}) but EMBEDDING_DIMENSIONS is ${config.EMBEDDING_DIMENSIONS}; rerun with --alter-dimensions to change the columns.`);
      }
      await alterDimensions(db, config.EMBEDDING_DIMENSIONS);
      log.info({ from: column, to: config.EMBEDDING_DIMENSIONS }, "vector columns altered");
    }
    const documents = await db("documents as d")
      .select("d.id", "d.org_id", "d.uploaded_by", "d.ingest_generation")
      .where("d.chunk_count", ">", 0)
      .modify((query) => (values.org ? query.where("d.org_id", values.org) : query));
    let queued = 0;
    for (const document of documents) {
      const generation = Number(document.ingest_generation) + 1;
      const userId =
        document.uploaded_by ?? (await db("users").where({ org_id: document.org_id, role: "admin" }).orderBy("created_at").first("id"))?.id;
      if (!userId) continue;
      await db.transaction(async (trx) => {
        await trx("documents").where({ id: document.id }).update({ ingest_generation: generation, status: "EMBEDDING", processing_started_at: trx.fn.now(), error: null, error_code: null });
        await trx("document_chunk_drafts").where({ document_id: document.id }).delete();
        await trx.raw(
          `INSERT INTO document_chunk_drafts (document_id, org_id, generation, position, content, metadata, token_count)
           SELECT document_id, org_id, ?, position, content, metadata, token_count FROM document_chunks WHERE document_id = ?`,
          [generation, document.id],
        );
      });
      await producer.enqueue("ingest-embed", { orgId: document.org_id, documentId: document.id, userId, generation }, { jobId: `${document.id}-g${generation}-embed` });
      queued++;
    }
    log.info({ queued }, "re-embedding queued; workers will swap each document's vectors when done");
  } finally {
    await producer.close();
    await redis.quit();
    await db.destroy();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
