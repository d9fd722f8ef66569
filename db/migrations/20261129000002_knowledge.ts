/**
 * Retrievable knowledge: documents split into chunks with both a dense embedding (semantic
 * search through pgvector) and a generated tsvector (keyword search), so hybrid retrieval is one
 * table. The vector width comes from EMBEDDING_DIMENSIONS at migration time: switching to a model
 * with another width means a new migration plus re-embedding, never a silent mismatch.
 */
import type { Knex } from "knex";
import { getConfig } from "../../lib/config";

/** pgvector's HNSW index refuses `vector` columns wider than this. */
const HNSW_MAX_DIMENSIONS = 2000;

export const PGVECTOR_MISSING_MESSAGE =
  "The pgvector extension is not available on this PostgreSQL server, so the `vector` column type " +
  "used for document embeddings cannot be created. Fix: run PostgreSQL from the `pgvector/pgvector:pg17` " +
  "image (docker-compose.yml does), or install pgvector on this server (https://github.com/pgvector/pgvector#installation) " +
  "and make sure the migrating role may run CREATE EXTENSION; or unset DATABASE_URL to use the embedded " +
  "PostgreSQL (PGlite), which ships with pgvector.";

/** Turns the server's terse "could not open extension control file" into an actionable error. */
async function ensurePgvector(knex: Knex): Promise<void> {
  try {
    await knex.raw("CREATE EXTENSION IF NOT EXISTS vector");
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`${PGVECTOR_MISSING_MESSAGE} (server said: ${detail})`, { cause: error });
  }
}

export async function up(knex: Knex): Promise<void> {
  await ensurePgvector(knex);
  const dimensions = getConfig().embedding.EMBEDDING_DIMENSIONS;

  await knex.schema.createTable("document_chunks", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("document_id").notNullable().references("id").inTable("documents").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.text("content").notNullable();
    // {heading, page_start, page_end, position}: what a citation shows the learner.
    t.jsonb("metadata").notNullable().defaultTo("{}");
    t.integer("token_count");
    // Nullable: chunks are written first and embedded by a later pipeline step.
    t.specificType("embedding", `vector(${dimensions})`);
    // 'simple' rather than a language config: the corpus mixes Spanish and English, and
    // stemming with the wrong language hurts more than not stemming.
    t.specificType("tsv", "tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["document_id", "position"]);
    t.index(["org_id", "document_id"]);
  });

  if (dimensions <= HNSW_MAX_DIMENSIONS) {
    await knex.raw("CREATE INDEX document_chunks_embedding_hnsw ON document_chunks USING hnsw (embedding vector_cosine_ops)");
  }
  // Wider models still work, by exact scan; an approximate index would need a halfvec expression
  // that every query would have to repeat.
  await knex.raw("CREATE INDEX document_chunks_tsv_gin ON document_chunks USING gin (tsv)");
}

/** Leaves the extension installed: it may predate this app or be shared with other schemas. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("document_chunks");
}
