/**
 * Search over the document chunks one reader may read: pgvector cosine and `simple` full-text,
 * both limited by `readableBy` (db/queries/access.ts).
 *
 * Vector search is exact for an organisation with at most `exactUpTo` chunks, for a search
 * inside one document, and for a larger organisation until its own HNSW index is valid
 * (db/queries/org-vector-indexes.ts): every chunk of the org is compared (found through the org_id
 * index), so recall is 1 by construction. A larger org with a valid index is searched through it:
 * the query names the org as the index predicate's literal, so the planner can prove the partial
 * index covers it, and the graph holds no other org's rows, so the tenant filter costs no recall.
 * Every pooled session scans iteratively (db/knex.ts), so the access filter cannot leave the
 * index path with fewer than k rows; it runs in a short transaction whose settings keep the
 * planner on the index with ORG_INDEX_EF_SEARCH candidates (indexPathSettings).
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { toVectorLiteral } from "../knex";
import { readableBy, type Reader } from "./access";
import { chunkMetadata, type ChunkMetadata } from "./json-columns";
import { legacyOrgVectorPredicate, orgVectorIndexStates, orgVectorPredicate } from "./org-vector-indexes";
import { LRUCache } from "lru-cache";

export interface ChunkHit {
  id: string;
  document_id: string;
  document_title: string;
  content: string;
  position: number;
  /** Parsed with the column's schema (json-columns.ts). */
  metadata: ChunkMetadata;
  similarity: number;
  text_rank: number;
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
  /** hnsw.ef_search of the org-index path (the bench compares values); ORG_INDEX_EF_SEARCH unless set. */
  efSearch?: number;
  /** The worker's memory of org sizes and index states (its deps); without one, every search looks again. */
  cache?: VectorSearchCache;
}

/** How long an org's (capped) chunk count and its index state are trusted: they decide exact versus index, nothing more. */
const ORG_SIZE_TTL_MS = 60_000;

/** What a search remembers about an organisation between turns; one per worker process, in its deps. */
export interface VectorSearchCache {
  orgSizes: LRUCache<string, number>;
  orgIndexes: LRUCache<string, VectorSearchPath>;
}

export const vectorSearchCache = (): VectorSearchCache => ({
  orgSizes: new LRUCache({ max: 10_000, ttl: ORG_SIZE_TTL_MS }),
  orgIndexes: new LRUCache({ max: 10_000, ttl: ORG_SIZE_TTL_MS }),
});

/** The org's chunk count, counted no further than `cap + 1` (remembered for a minute when given a cache). */
async function orgChunkCount(db: Db, orgId: string, cap: number, cache?: VectorSearchCache): Promise<number> {
  const key = `${orgId}:${cap}`;
  const known = cache?.orgSizes.get(key);
  if (known !== undefined) return known;
  const { rows } = await db.raw("SELECT count(*)::int AS chunks FROM (SELECT 1 FROM document_chunks WHERE org_id = ? LIMIT ?) capped", [orgId, cap + 1]);
  const chunks = rows[0].chunks as number;
  cache?.orgSizes.set(key, chunks);
  return chunks;
}

/**
 * How a search runs: exact (every row of the org sorted); through the org's own HNSW index plus
 * an exact scan of its pending rows; or, until that index is valid, through the org's index of
 * the first layout (every row in its graph, pending or not), where one is left.
 */
export type VectorSearchPath = "exact" | "org-index" | "legacy-index";

/** Which of the org's indexes is valid (remembered as long as its size is): until one is, the org is searched exactly. */
async function orgIndexPath(db: Db, orgId: string, cache?: VectorSearchCache): Promise<VectorSearchPath> {
  const known = cache?.orgIndexes.get(orgId);
  if (known !== undefined) return known;
  const states = await orgVectorIndexStates(db, orgId);
  const path = states.current === "valid" ? "org-index" : states.legacy === "valid" ? "legacy-index" : "exact";
  cache?.orgIndexes.set(orgId, path);
  return path;
}

async function searchPath(db: Db, { reader, documentId, exactUpTo = 0, cache }: VectorSearchOptions): Promise<VectorSearchPath> {
  if (documentId) return "exact";
  if (exactUpTo > 0 && (await orgChunkCount(db, reader.orgId, exactUpTo, cache)) <= exactUpTo) return "exact";
  return orgIndexPath(db, reader.orgId, cache);
}

/**
 * The search statement of a path: vectorSearch runs it, vectorSearchPlan explains it. On the
 * org-index path it is two ordered parts in one UNION ALL (the graph's k nearest of the folded
 * rows, the exact k nearest of the pending ones); vectorSearch keeps the nearest k of both.
 */
function vectorStatement(conn: Db | Knex.Transaction, options: VectorSearchOptions, path: VectorSearchPath): Knex.Raw {
  const { reader, embedding, limit, documentId } = options;
  const vector = toVectorLiteral(embedding);
  const part = (orgFilter: string, orgBindings: unknown[], exact: boolean) => ({
    // `+ 0`: an ORDER BY no HNSW index can serve, so the planner reads the org's rows by org_id and sorts them all.
    sql: `SELECT c.id, c.document_id, d.title AS document_title, c.content, c.position, c.metadata,
            1 - (c.embedding <=> ?::vector) AS similarity, 0 AS text_rank
       FROM document_chunks c
       JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
      WHERE ${orgFilter} AND c.embedding IS NOT NULL ${documentId ? "AND c.document_id = ?" : ""} AND ?
      ORDER BY ${exact ? "(c.embedding <=> ?::vector) + 0" : "c.embedding <=> ?::vector"}
      LIMIT ?`,
    bindings: [vector, ...orgBindings, ...(documentId ? [documentId] : []), readableBy(conn, reader), vector, limit],
  });
  if (path === "exact") {
    const { sql, bindings } = part("c.org_id = ?", [reader.orgId], true);
    return conn.raw(sql, bindings as never[]);
  }
  // The org as its index's predicate literal (not a parameter), so the planner can match the partial index.
  if (path === "legacy-index") {
    const { sql, bindings } = part(legacyOrgVectorPredicate(reader.orgId, "c."), [], false);
    return conn.raw(sql, bindings as never[]);
  }
  const graph = part(orgVectorPredicate(reader.orgId, "c."), [], false);
  // The tail's rows first, each distance computed once; joined to their documents after. Inline, the
  // planner (a few documents expected) rescanned the whole tail once per document of the org.
  return conn.raw(
    `WITH tail AS MATERIALIZED (
       SELECT id, document_id, org_id, content, position, metadata, embedding <=> ?::vector AS distance
         FROM document_chunks WHERE org_id = ? AND vector_pending AND embedding IS NOT NULL)
     (${graph.sql})
     UNION ALL
     (SELECT c.id, c.document_id, d.title AS document_title, c.content, c.position, c.metadata, 1 - c.distance AS similarity, 0 AS text_rank
        FROM tail c JOIN documents d ON d.id = c.document_id AND d.org_id = c.org_id
       WHERE ? ORDER BY c.distance LIMIT ?)`,
    [vector, reader.orgId, ...graph.bindings, readableBy(conn, reader), limit] as never[],
  );
}

export async function vectorSearch(db: Db, options: VectorSearchOptions): Promise<ChunkHit[]> {
  const path = await searchPath(db, options);
  const search = async (conn: Db | Knex.Transaction) => {
    const rows = await vectorStatement(conn, options, path);
    const hits = (rows.rows as StoredHit[]).map(normaliseHit);
    // The graph's and the tail's nearest, merged (a no-op for one part: it is ordered already).
    if (path === "org-index") hits.sort((a, b) => b.similarity - a.similarity);
    return hits.slice(0, options.limit).filter((hit) => hit.similarity >= options.minSimilarity);
  };
  if (path === "exact") return search(db);
  return db.transaction(async (trx) => {
    await trx.raw(indexPathSettings(options));
    return search(trx);
  });
}

/**
 * Candidates the org-index path keeps (hnsw.ef_search). At 1M chunks over 200 orgs, 100 found
 * 0.943 of the true ten nearest in orgs of 57k–100k chunks and 200 found 0.963, at 1.9 against
 * 2.2 ms p50; smaller orgs were at ≥ 0.99 either way (bench/results-vector-1m.md).
 */
export const ORG_INDEX_EF_SEARCH = 200;

/**
 * The index paths' session settings, one statement. `enable_sort = off`: the planner otherwise
 * costs a walk of the org's documents plus a sort of their chunks below the HNSW scan for an org
 * of a few thousand chunks, and the product, not the planner, decides which orgs are searched
 * exactly. `jit = off`: the tail's exact part must still sort, and the cost enable_sort = off adds
 * to that sort (10^10) put the plan past jit_above_cost: 57 functions compiled, ≈ 0.4 s a search.
 * ef_search: ORG_INDEX_EF_SEARCH, or four candidates per row asked for when that is more.
 */
function indexPathSettings({ limit, efSearch = ORG_INDEX_EF_SEARCH }: VectorSearchOptions): string {
  return `SET LOCAL enable_sort = off; SET LOCAL jit = off; SET LOCAL hnsw.ef_search = ${Math.max(efSearch, limit * 4)}`;
}

/** The path vectorSearch would take and the planner's plan for it: what ops (and tests) check the org's index is used with. */
export async function vectorSearchPlan(db: Db, options: VectorSearchOptions): Promise<{ path: VectorSearchPath; plan: string }> {
  const path = await searchPath(db, options);
  const explain = async (conn: Db | Knex.Transaction) => {
    const { sql, bindings } = vectorStatement(conn, options, path).toSQL();
    const { rows } = await conn.raw(`EXPLAIN ${sql}`, bindings);
    return (rows as Array<Record<string, string>>).map((row) => row["QUERY PLAN"]).join("\n");
  };
  if (path === "exact") return { path, plan: await explain(db) };
  const plan = await db.transaction(async (trx) => {
    await trx.raw(indexPathSettings(options));
    return explain(trx);
  });
  return { path, plan };
}

/**
 * Full-text search with OR semantics over the given content words (already stop-word free) and
 * any `to_tsquery('simple', …)` expressions (a question term's stems and family: relevance.ts).
 */
export async function keywordSearch(
  db: Db,
  { reader, words, queries = [], limit }: { reader: Reader; words: string[]; queries?: string[]; limit: number },
): Promise<ChunkHit[]> {
  const terms = [...new Set(words.map((word) => word.replace(/[^\p{L}\p{N}]/gu, "")).filter((word) => word.length > 1))].slice(0, 32);
  if (terms.length === 0 && queries.length === 0) return [];
  const query = [...terms, ...queries.slice(0, 16).map((expression) => `(${expression})`)].join(" | ");
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
  return (rows.rows as StoredHit[]).map(normaliseHit);
}

/** A hit as Postgres returns it: numerics as strings, the metadata as stored. */
type StoredHit = Omit<ChunkHit, "metadata"> & { metadata: unknown };

function normaliseHit(hit: StoredHit): ChunkHit {
  return {
    ...hit,
    similarity: Number(hit.similarity),
    text_rank: Number(hit.text_rank),
    position: Number(hit.position),
    metadata: chunkMetadata.parse(hit.metadata),
  };
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
