/** The width of the stored embedding vectors: read at worker start-up, changed by `npm run reembed -- --alter-dimensions`. */
import type { Db } from "../knex";
import { dropOrgVectorIndexes } from "./org-vector-indexes";

/** The dimensions of document_chunks.embedding, or null before the migration made it. */
export async function databaseVectorDimensions(db: Db): Promise<number | null> {
  const result = await db.raw(
    `SELECT a.atttypmod AS dims FROM pg_attribute a
      WHERE a.attrelid = to_regclass('document_chunks') AND a.attname = 'embedding' AND NOT a.attisdropped`,
  );
  const dims = result.rows[0]?.dims;
  return typeof dims === "number" && dims > 0 ? dims : null;
}

/**
 * Retypes both vector columns (emptying them: every document must be re-embedded). The
 * organisations' HNSW indexes go too; the maintenance sweep builds them again, where pgvector
 * allows one, once the re-embedded chunks are published.
 */
export async function alterVectorDimensions(db: Db, dimensions: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw("DROP INDEX IF EXISTS document_chunks_embedding_hnsw");
    await dropOrgVectorIndexes(trx);
    await trx.raw(`ALTER TABLE document_chunks ALTER COLUMN embedding TYPE vector(${dimensions}) USING NULL`);
    await trx.raw(`ALTER TABLE document_chunk_drafts ALTER COLUMN embedding TYPE vector(${dimensions}) USING NULL`);
  });
}
