/**
 * Vector search leaves the one HNSW graph over every organisation's chunks: under the tenant
 * filter its recall fell to 0.12–0.29 at 100,000 rows whatever `ef_search` (bench/results-vector-server.md),
 * and every insert paid for a graph of the whole table. Small organisations are searched exactly,
 * large ones through an HNSW index of their own rows (`WHERE org_id = …`), built concurrently by the
 * maintenance sweep once they grow past RETRIEVAL_EXACT_MAX_CHUNKS (db/queries/org-vector-indexes.ts).
 * Until an organisation's index is valid its search stays exact, so dropping the shared graph never
 * gives a wrong answer, only a slower one for the largest organisations until the sweep has run.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS document_chunks_embedding_hnsw");
}

export async function down(knex: Knex): Promise<void> {
  const { rows } = await knex.raw("SELECT a.atttypmod AS dims FROM pg_attribute a WHERE a.attrelid = 'document_chunks'::regclass AND a.attname = 'embedding'");
  if (Number(rows[0]?.dims) <= 2000) {
    await knex.raw("CREATE INDEX IF NOT EXISTS document_chunks_embedding_hnsw ON document_chunks USING hnsw (embedding vector_cosine_ops)");
  }
}
