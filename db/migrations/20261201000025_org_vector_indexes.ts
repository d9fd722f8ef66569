/**
 * Vector search leaves the one HNSW graph over every organisation's chunks: under the tenant
 * filter its recall fell to 0.12–0.29 at 100,000 rows whatever `ef_search` (bench/results-vector-server.md),
 * and every insert paid for a graph of the whole table. Small organisations are searched exactly,
 * large ones through an HNSW index of their own rows (`WHERE org_id = …`), built concurrently by the
 * maintenance sweep once they grow past RETRIEVAL_EXACT_MAX_CHUNKS (db/queries/org-vector-indexes.ts).
 * Until an organisation's index is valid its search stays exact, so dropping the shared graph never
 * gives a wrong answer, only a slower one for the largest organisations until the sweep has run.
 *
 * The vector is kept in the row (storage MAIN) rather than pgvector's default EXTERNAL: with a
 * chunk's text and tsvector beside it a 384-dimension row passes the 2 kB TOAST threshold, the
 * vector went out of line, and exact search read ~3.6 buffers per chunk instead of ~0.6 (EXPLAIN
 * BUFFERS on 2,101 chunks: 7,598 against 1,292 heap blocks). MAIN still moves a vector out of line
 * when nothing else makes the row fit (very wide models). Rows already written keep their layout
 * until rewritten (re-embedding rewrites them).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS document_chunks_embedding_hnsw");
  await knex.raw("ALTER TABLE document_chunks ALTER COLUMN embedding SET STORAGE MAIN");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE document_chunks ALTER COLUMN embedding SET STORAGE EXTERNAL");
  const { rows } = await knex.raw("SELECT a.atttypmod AS dims FROM pg_attribute a WHERE a.attrelid = 'document_chunks'::regclass AND a.attname = 'embedding'");
  if (Number(rows[0]?.dims) <= 2000) {
    await knex.raw("CREATE INDEX IF NOT EXISTS document_chunks_embedding_hnsw ON document_chunks USING hnsw (embedding vector_cosine_ops)");
  }
}
