/**
 * Search over the document chunks one reader may read: pgvector cosine (HNSW) and `simple`
 * full-text, both limited by `readableBy` (db/queries/access.ts). Every pooled session has
 * iterative HNSW scans on where pgvector supports them (0.8+, db/knex.ts), so the org filter
 * cannot leave the index with fewer than k rows to return. A search for more rows than the default
 * `hnsw.ef_search` (40) covers runs in a short transaction that raises it to 4k; the tutor's
 * searches (k ≤ 10) are one statement, one round trip, instead of five.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { toVectorLiteral } from "../knex";
import { readableBy, type Reader } from "./access";

export interface ChunkHit {
  id: string;
  document_id: string;
  document_title: string;
  content: string;
  position: number;
  metadata: { heading?: string | null; page_start?: number | null; page_end?: number | null; position?: number };
  similarity: number;
  text_rank: number;
}

let iterativeScan: boolean | undefined;

async function supportsIterativeScan(db: Db): Promise<boolean> {
  if (iterativeScan === undefined) {
    const row = await db("pg_extension").select("extversion").where({ extname: "vector" }).first();
    const [major = 0, minor = 0] = String(row?.extversion ?? "0.0")
      .split(".")
      .map(Number);
    iterativeScan = major > 0 || minor >= 8;
  }
  return iterativeScan;
}

export interface VectorSearchOptions {
  /** Whose search this is: only documents they may read are searched. */
  reader: Reader;
  embedding: number[];
  limit: number;
  minSimilarity: number;
  documentId?: string;
}

/** pgvector's default `hnsw.ef_search`: candidates the index scan keeps in its queue. */
const DEFAULT_EF_SEARCH = 40;

export async function vectorSearch(db: Db, { reader, embedding, limit, minSimilarity, documentId }: VectorSearchOptions): Promise<ChunkHit[]> {
  const iterative = await supportsIterativeScan(db);
  const vector = toVectorLiteral(embedding);
  const search = async (conn: Db | Knex.Transaction) => {
    const rows = await conn.raw(
      `SELECT c.id, c.document_id, d.title AS document_title, c.content, c.position, c.metadata,
              1 - (c.embedding <=> ?::vector) AS similarity, 0 AS text_rank
         FROM document_chunks c
         JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
        WHERE c.org_id = ? AND c.embedding IS NOT NULL ${documentId ? "AND c.document_id = ?" : ""} AND ?
        ORDER BY c.embedding <=> ?::vector
        LIMIT ?`,
      [vector, reader.orgId, ...(documentId ? [documentId] : []), readableBy(conn, reader), vector, limit],
    );
    return (rows.rows as ChunkHit[]).map(normaliseHit).filter((hit) => hit.similarity >= minSimilarity);
  };
  const efSearch = limit * 4;
  if (efSearch <= DEFAULT_EF_SEARCH) return search(db);
  return db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL hnsw.ef_search = ${efSearch}`);
    if (iterative) await trx.raw("SET LOCAL hnsw.iterative_scan = relaxed_order");
    return search(trx);
  });
}

/** Full-text search with OR semantics over the given content words (already stop-word free). */
export async function keywordSearch(db: Db, { reader, words, limit }: { reader: Reader; words: string[]; limit: number }): Promise<ChunkHit[]> {
  const terms = [...new Set(words.map((word) => word.replace(/[^\p{L}\p{N}]/gu, "")).filter((word) => word.length > 1))].slice(0, 32);
  if (terms.length === 0) return [];
  const query = terms.join(" | ");
  const rows = await db.raw(
    `SELECT c.id, c.document_id, d.title AS document_title, c.content, c.position, c.metadata,
            0 AS similarity, ts_rank_cd(c.tsv, q) AS text_rank
       FROM document_chunks c
       JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id,
            to_tsquery('simple', ?) q
      WHERE c.org_id = ? AND c.tsv @@ q AND ?
      ORDER BY text_rank DESC
      LIMIT ?`,
    [query, reader.orgId, readableBy(db, reader), limit],
  );
  return (rows.rows as ChunkHit[]).map(normaliseHit);
}

function normaliseHit(hit: ChunkHit): ChunkHit {
  return { ...hit, similarity: Number(hit.similarity), text_rank: Number(hit.text_rank), position: Number(hit.position), metadata: hit.metadata ?? {} };
}
