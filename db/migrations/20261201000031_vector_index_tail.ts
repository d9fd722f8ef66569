/**
 * A write-optimised tail for the organisations' HNSW indexes (db/queries/org-vector-indexes.ts).
 * pgvector inserts a row into an HNSW graph synchronously, ≈ 1.5 ms a row at 1M chunks, against
 * ≈ 0.1 ms for the rest of the row: with every large organisation indexed the insert rate fell to
 * 6.5 % of the empty table's (bench/results-vector-1m.md). A chunk of an indexed organisation is
 * now written with `vector_pending` set: outside its organisation's index (whose predicate says
 * `NOT vector_pending`), found by an exact scan of the organisation's pending rows that every
 * index search adds to the graph's answer, and folded into the graph later, in batches, by the
 * maintenance sweep. Rows written before this migration are not pending.
 *
 * Online on a large table: ADD COLUMN with a constant default rewrites nothing, and the index of
 * pending rows (none yet) is built CONCURRENTLY, which cannot run inside a transaction.
 */
import type { Knex } from "knex";

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS vector_pending boolean NOT NULL DEFAULT false");
  // A build that died leaves an invalid index that IF NOT EXISTS would keep: drop it first.
  const { rows } = await knex.raw(
    "SELECT NOT i.indisvalid AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'document_chunks_vector_pending' AND c.relnamespace = current_schema()::regnamespace",
  );
  if (rows[0]?.invalid) await knex.raw("DROP INDEX CONCURRENTLY document_chunks_vector_pending");
  await knex.raw("CREATE INDEX CONCURRENTLY IF NOT EXISTS document_chunks_vector_pending ON document_chunks (org_id) WHERE vector_pending");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX CONCURRENTLY IF EXISTS document_chunks_vector_pending");
  await knex.raw("ALTER TABLE document_chunks DROP COLUMN IF EXISTS vector_pending");
}
