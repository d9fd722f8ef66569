/**
 * Re-embeds every document after an embedding-model change: `npm run reembed`.
 * Chunks are unchanged, so each document's current chunks are copied into drafts for a new
 * ingestion generation and `ingest-embed` re-vectorises them; search keeps serving the old
 * vectors until each document's swap. With `--alter-dimensions` it first changes the vector
 * columns to EMBEDDING_DIMENSIONS (old vectors are dropped; keyword search still works
 * meanwhile). Workers must be running to do the embedding.
 */
import { parseArgs } from "node:util";
import { getConfig, requireSetting } from "../../lib/config";
import { componentLogger } from "../../lib/logger";
import { createDb } from "../../db/knex";
import { listIndexedDocuments, startReembedRun } from "../../db/queries/chunk-drafts";
import { findFirstAdmin } from "../../db/queries/users";
import { createRedis, redisTargetOf } from "../../queues/connection";
import { queueLayoutOf } from "../../queues/layout";
import { JobProducer } from "../../queues/producer";
import { alterVectorDimensions, databaseVectorDimensions } from "../../db/queries/vector-columns";

const log = componentLogger("reembed");
const { values } = parseArgs({ options: { "alter-dimensions": { type: "boolean", default: false }, org: { type: "string" } } });

async function main(): Promise<void> {
  const config = getConfig();
  const db = createDb({ url: requireSetting(config.database, "DATABASE_URL"), poolMax: 2 });
  const redis = createRedis(redisTargetOf(config), "worker", log);
  const producer = new JobProducer(redis, log, queueLayoutOf(config));
  try {
    const column = await databaseVectorDimensions(db);
    if (column !== null && column !== config.embedding.EMBEDDING_DIMENSIONS) {
      if (!values["alter-dimensions"]) {
        throw new Error(
          `The database stores vector(${column}) but EMBEDDING_DIMENSIONS is ${config.embedding.EMBEDDING_DIMENSIONS}; rerun with --alter-dimensions to change the columns.`,
        );
      }
      await alterVectorDimensions(db, config.embedding.EMBEDDING_DIMENSIONS);
      log.info({ from: column, to: config.embedding.EMBEDDING_DIMENSIONS }, "vector columns altered");
    }
    const documents = await listIndexedDocuments(db, values.org);
    let queued = 0;
    for (const document of documents) {
      const generation = Number(document.ingest_generation) + 1;
      const userId = document.uploaded_by ?? (await findFirstAdmin(db, document.org_id));
      if (!userId) continue;
      await startReembedRun(db, { orgId: document.org_id, documentId: document.id, generation });
      await producer.enqueueIngestStage("ingest-embed", { orgId: document.org_id, documentId: document.id, userId, generation });
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
