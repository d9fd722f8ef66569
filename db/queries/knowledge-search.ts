/**
 * Search over the document chunks one reader may read: pgvector cosine and `simple` full-text,
 * both limited by `readableBy` (db/queries/access.ts).
 *
 * Vector search is exact for an organisation with at most `exactUpTo` chunks, and for a search
 * inside one document: every chunk of the org is compared (found through the org_id index), so
 * recall is 1 by construction. An HNSW graph holds every org's rows, and when the searched org is
 * a small share of them its recall collapses — 0.61 of the true ten nearest at 10,000 rows with
 * ef_search 40 and iterative scans (0.29 without them), 0.2–0.3 at 100,000 whatever `ef_search`
 * (bench/results.md, measure 5). A
 * larger org goes through the index: every pooled session scans iteratively with ef_search 100
 * (db/knex.ts), so the org filter cannot leave it with fewer than k rows; a search for more rows
 * than that covers runs in a short transaction that raises it.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { HNSW_EF_SEARCH, toVectorLiteral } from "../knex";
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
  /** Search exactly when the reader's org has at most this many chunks (RETRIEVAL_EXACT_MAX_CHUNKS); 0: always the index. */
  exactUpTo?: number;
}

/** How long an org's (capped) chunk count is trusted: it decides exact versus index, nothing more. */
const ORG_SIZE_TTL_MS = 60_000;
const orgSizes = new Map<string, { chunks: number; at: number }>();

/** The org's chunk count, counted no further than `cap + 1` and remembered for a minute. */
async function orgChunkCount(db: Db, orgId: string, cap: number): Promise<number> {
  const key = `${orgId}:${cap}`;
  const known = orgSizes.get(key);
  if (known && performance.now() - known.at < ORG_SIZE_TTL_MS) return known.chunks;
  const { rows } = await db.raw("SELECT count(*)::int AS chunks FROM (SELECT 1 FROM document_chunks WHERE org_id = ? LIMIT ?) capped", [orgId, cap + 1]);
  const chunks = rows[0].chunks as number;
  if (orgSizes.size > 10_000) orgSizes.clear();
  orgSizes.set(key, { chunks, at: performance.now() });
  return chunks;
}

export async function vectorSearch(db: Db, options: VectorSearchOptions): Promise<ChunkHit[]> {
  const { reader, embedding, limit, minSimilarity, documentId, exactUpTo = 0 } = options;
  const exact = Boolean(documentId) || (exactUpTo > 0 && (await orgChunkCount(db, reader.orgId, exactUpTo)) <= exactUpTo);
  const vector = toVectorLiteral(embedding);
  // `+ 0`: an ORDER BY the HNSW index cannot serve, so the planner reads the org's rows by org_id and sorts them all.
  const distance = exact ? "(c.embedding <=> ?::vector) + 0" : "c.embedding <=> ?::vector";
  const search = async (conn: Db | Knex.Transaction) => {
    const rows = await conn.raw(
      `SELECT c.id, c.document_id, d.title AS document_title, c.content, c.position, c.metadata,
              1 - (c.embedding <=> ?::vector) AS similarity, 0 AS text_rank
         FROM document_chunks c
         JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
        WHERE c.org_id = ? AND c.embedding IS NOT NULL ${documentId ? "AND c.document_id = ?" : ""} AND ?
        ORDER BY ${distance}
        LIMIT ?`,
      [vector, reader.orgId, ...(documentId ? [documentId] : []), readableBy(conn, reader), vector, limit],
    );
    return (rows.rows as ChunkHit[]).map(normaliseHit).filter((hit) => hit.similarity >= minSimilarity);
  };
  const efSearch = limit * 4;
  if (exact || efSearch <= HNSW_EF_SEARCH) return search(db);
  const iterative = await supportsIterativeScan(db);
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

/** How often each term occurs in an organisation's material, the base of its rarity weight. */
export interface TermFrequencies {
  /** Chunks the organisation holds. */
  units: number;
  /** Per term (same order as asked): chunks that contain it, or whose document's title does. */
  frequencies: number[];
}

/**
 * Per-term document frequencies over the org's chunks (each a `to_tsquery('simple', …)`
 * expression such as `polic:* | políc:*`). A chunk counts when its text holds the term or its
 * document's title does: every chunk is embedded and cited under that title, so a title word
 * ("Policy", "Manual") is as common as the document is long. One statement of scalar subqueries,
 * each served by the GIN index on `tsv`; plain SQL, so PGlite and PostgreSQL answer alike.
 */
export async function termFrequencies(db: Db, orgId: string, terms: string[]): Promise<TermFrequencies> {
  if (terms.length === 0) return { units: 0, frequencies: [] };
  const perTerm = terms.map(
    (_, i) => `(SELECT count(*) FROM document_chunks c WHERE c.org_id = ? AND c.tsv @@ to_tsquery('simple', ?))::int AS c${i},
       (SELECT coalesce(sum(d.chunk_count), 0) FROM documents d WHERE d.org_id = ? AND to_tsvector('simple', d.title) @@ to_tsquery('simple', ?))::int AS d${i}`,
  );
  const bindings = terms.flatMap((term) => [orgId, term, orgId, term]);
  const { rows } = await db.raw(`SELECT (SELECT count(*) FROM document_chunks WHERE org_id = ?)::int AS units, ${perTerm.join(", ")}`, [orgId, ...bindings]);
  const row = rows[0] as Record<string, number>;
  const units = Number(row.units);
  // A chunk holding the word under a title holding it too is counted twice: capped at the total.
  return { units, frequencies: terms.map((_, i) => Math.min(units, Number(row[`c${i}`]) + Number(row[`d${i}`]))) };
}
