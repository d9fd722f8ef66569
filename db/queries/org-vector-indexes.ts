/**
 * One HNSW index per large organisation: `document_chunks_vectors_org_<id>`, over the chunks of
 * that organisation only (`WHERE org_id = '<id>' AND NOT vector_pending`). A shared graph over
 * every organisation lost its recall under the tenant filter (0.86–0.94 at 200,000 rows, 0.12–0.29
 * at 100,000 on harder data); a graph of the organisation's own rows has no filter to fight: at 1M
 * chunks over 200 organisations it found ≥ 0.959 of the true ten nearest at every organisation
 * size, 0.99–1.00 below 50k chunks, at ef_search 200 (bench/results-vector-1m.md).
 *
 * Built with CREATE INDEX CONCURRENTLY, so ingestion and search go on meanwhile; until
 * `pg_index.indisvalid` is true the planner cannot use it and vectorSearch searches exactly. A
 * build holds a session advisory lock on the organisation, so two sweeps never build (or drop)
 * the same index at once, and a build that died (cancelled, connection lost, server restarted)
 * leaves an invalid index that the next holder of the lock drops and builds again.
 *
 * The write-optimised tail: pgvector inserts into the graph synchronously (≈ 1.5 ms a row at 1M
 * chunks, fifteen times the rest of the row), so a chunk published into an organisation that has
 * its index is written `vector_pending` (chunksEnterVectorTail): outside the graph, found by the
 * exact scan of the organisation's pending rows that the index search adds, and moved into the
 * graph later, a batch per transaction, by the maintenance sweep (foldVectorTail). Once an
 * organisation's tail holds VECTOR_TAIL_MAX_CHUNKS rows, its new chunks go into the graph
 * directly again (slower inserts, but the exact part of a search stays bounded).
 *
 * Indexes of the first layout (`document_chunks_embedding_org_<id>`, `WHERE org_id = …` only,
 * which would index pending rows too) are searched until the organisation's new index is valid,
 * then dropped by the sweep.
 */
import { LRUCache } from "lru-cache";
import type { Db } from "../knex";

const NAME_PREFIX = "document_chunks_vectors_org_";
/** The first layout's indexes (every row of the org, pending or not): searched until replaced, then dropped. */
const LEGACY_NAME_PREFIX = "document_chunks_embedding_org_";
/**
 * Pending rows an organisation's tail may hold before new chunks go into its graph directly: the
 * exact part of a search reads at most this many. 2,000, where RETRIEVAL_EXACT_MAX_CHUNKS puts
 * exact search's crossover: at 100k chunks and load ≈ 10 a tail of 5,000 rows took the search's
 * p99 to 186 ms, one of 2,000 to 40 ms (scripts/bench/vector-candidates.ts).
 */
export const VECTOR_TAIL_MAX_CHUNKS = 2_000;
/** How long chunksEnterVectorTail's answer is reused per organisation: a publish is a few dozen rows, the decision a catalog lookup and a count. */
const TAIL_DECISION_TTL_MS = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organisation id as it appears, validated, in index names and predicates (it is spliced into SQL). */
function checkedOrgId(orgId: string): string {
  if (!UUID.test(orgId)) throw new TypeError(`not an organisation id: ${orgId}`);
  return orgId.toLowerCase();
}

/** 28 + 32 characters: within Postgres's 63-character identifiers. */
export function orgVectorIndexName(orgId: string): string {
  return `${NAME_PREFIX}${checkedOrgId(orgId).replaceAll("-", "")}`;
}

/** The organisation's index of the first layout, if it still has one. */
export function legacyOrgVectorIndexName(orgId: string): string {
  return `${LEGACY_NAME_PREFIX}${checkedOrgId(orgId).replaceAll("-", "")}`;
}

/**
 * The predicate of the organisation's index and of every search meant to use it. The planner
 * matches a partial index by proving the query's WHERE implies the index's, so the search names
 * the organisation as the same literal rather than as a bound parameter.
 */
export function orgVectorPredicate(orgId: string, alias = ""): string {
  return `${orgColumnPredicate(orgId, alias)} AND NOT ${alias}vector_pending`;
}

/** The first layout's predicate: the organisation alone. */
export function legacyOrgVectorPredicate(orgId: string, alias = ""): string {
  return orgColumnPredicate(orgId, alias);
}

const orgColumnPredicate = (orgId: string, alias: string) => `${alias}org_id = '${checkedOrgId(orgId)}'::uuid`;

export type OrgVectorIndexState = "valid" | "building-or-invalid" | "absent";

export async function orgVectorIndexState(db: Db, orgId: string): Promise<OrgVectorIndexState> {
  return (await orgVectorIndexStates(db, orgId)).current;
}

/** The state of the organisation's index and of its first-layout one, in one lookup. */
export async function orgVectorIndexStates(db: Db, orgId: string): Promise<{ current: OrgVectorIndexState; legacy: OrgVectorIndexState }> {
  const names = [orgVectorIndexName(orgId), legacyOrgVectorIndexName(orgId)];
  const { rows } = await db.raw(
    `SELECT c.relname AS name, i.indisvalid AND i.indisready AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
      WHERE c.relname = ANY(?) AND c.relnamespace = current_schema()::regnamespace`,
    [names],
  );
  const stateOf = (name: string): OrgVectorIndexState => {
    const row = (rows as Array<{ name: string; valid: boolean }>).find((candidate) => candidate.name === name);
    if (!row) return "absent";
    return row.valid ? "valid" : "building-or-invalid";
  };
  return { current: stateOf(names[0]!), legacy: stateOf(names[1]!) };
}

/** Organisations holding more than `minChunks` published chunks whose index is not valid yet, largest first: one query, however many orgs. */
export async function orgsNeedingVectorIndex(db: Db, minChunks: number): Promise<Array<{ orgId: string; chunks: number }>> {
  const { rows } = await db.raw(
    `SELECT s.org_id, s.chunks FROM (
        SELECT d.org_id, sum(d.chunk_count)::bigint AS chunks FROM documents d
          JOIN organizations o ON o.id = d.org_id AND o.deleting_since IS NULL -- an organisation being deleted gets no new index
         GROUP BY d.org_id HAVING sum(d.chunk_count) > ?
      ) s
      LEFT JOIN pg_class c ON c.relname = ? || replace(s.org_id::text, '-', '') AND c.relnamespace = current_schema()::regnamespace
      LEFT JOIN pg_index i ON i.indexrelid = c.oid
     WHERE NOT coalesce(i.indisvalid AND i.indisready, false)
     ORDER BY s.chunks DESC`,
    [minChunks, NAME_PREFIX],
  );
  return (rows as Array<{ org_id: string; chunks: string }>).map((row) => ({ orgId: row.org_id, chunks: Number(row.chunks) }));
}

export type OrgVectorIndexBuild = "built" | "already-valid" | "locked";

export interface BuildOptions {
  /** maintenance_work_mem for the build, in MB: an HNSW graph that does not fit is built far slower. */
  memoryMb: number;
}

/**
 * Makes the organisation's index valid: drops an invalid leftover, then builds concurrently.
 * Idempotent and safe to run from several workers: only the holder of the organisation's
 * advisory lock touches its index; the others return "locked" at once.
 */
export async function buildOrgVectorIndex(db: Db, orgId: string, { memoryMb }: BuildOptions): Promise<OrgVectorIndexBuild> {
  const name = orgVectorIndexName(orgId);
  // One connection for the lock, the session settings and the statements (CONCURRENTLY cannot run in a transaction).
  const connection = await db.client.acquireConnection();
  const run = (sql: string, bindings: readonly unknown[] = []) => db.raw(sql, bindings as never[]).connection(connection);
  let locked = false;
  let timeout: string | undefined;
  try {
    const lock = await run("SELECT pg_try_advisory_lock(hashtext(?)) AS locked", [name]);
    locked = Boolean(lock.rows[0].locked);
    if (!locked) return "locked";
    const state = await orgVectorIndexState(db, orgId);
    if (state === "valid") {
      await run(`DROP INDEX CONCURRENTLY IF EXISTS ${legacyOrgVectorIndexName(orgId)}`);
      return "already-valid";
    }
    // The pool's statement timeout is for queries; a build of 100,000 rows takes minutes.
    timeout = (await run("SHOW statement_timeout")).rows[0].statement_timeout as string;
    await run("SET statement_timeout = 0");
    await run(`SET maintenance_work_mem = '${Math.floor(memoryMb)}MB'`);
    // Under our lock an invalid index is no build in progress but a dead one's leftover.
    if (state === "building-or-invalid") await run(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await run(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON document_chunks USING hnsw (embedding vector_cosine_ops) WHERE ${orgVectorPredicate(orgId)}`);
    // The first layout's index also takes every pending row into its graph: once the new one is valid it only costs inserts.
    await run(`DROP INDEX CONCURRENTLY IF EXISTS ${legacyOrgVectorIndexName(orgId)}`);
    return "built";
  } finally {
    if (timeout !== undefined) await run(`SET statement_timeout = '${timeout}'`).catch(() => undefined);
    await run("RESET maintenance_work_mem").catch(() => undefined);
    if (locked) await run("SELECT pg_advisory_unlock(hashtext(?))", [name]).catch(() => undefined);
    await db.client.releaseConnection(connection);
  }
}

/** Every organisation's index (when the vector column is retyped they must go: the sweep builds them again). */
export async function dropOrgVectorIndexes(db: Db): Promise<string[]> {
  const { rows } = await db.raw(
    "SELECT relname FROM pg_class WHERE relkind = 'i' AND (relname LIKE ? OR relname LIKE ?) AND relnamespace = current_schema()::regnamespace",
    [`${NAME_PREFIX}%`, `${LEGACY_NAME_PREFIX}%`],
  );
  const names = (rows as Array<{ relname: string }>).map((row) => row.relname);
  for (const name of names) await db.raw(`DROP INDEX IF EXISTS ${name}`);
  return names;
}

/**
 * Drops the organisation's indexes (both layouts) when it is deleted; returns the names that
 * existed. Waits for the organisation's advisory lock, so a build under way finishes (or dies)
 * first rather than leaving an index behind.
 */
export async function dropVectorIndexesOfOrg(db: Db, orgId: string): Promise<string[]> {
  const names = [orgVectorIndexName(orgId), legacyOrgVectorIndexName(orgId)];
  const connection = await db.client.acquireConnection();
  const run = (sql: string, bindings: readonly unknown[] = []) => db.raw(sql, bindings as never[]).connection(connection);
  try {
    await run("SELECT pg_advisory_lock(hashtext(?))", [names[0]]);
    const { rows } = await run("SELECT relname FROM pg_class WHERE relkind = 'i' AND relname = ANY(?) AND relnamespace = current_schema()::regnamespace", [
      names,
    ]);
    const existing = (rows as Array<{ relname: string }>).map((row) => row.relname);
    for (const name of existing) await run(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    return existing;
  } finally {
    await run("SELECT pg_advisory_unlock(hashtext(?))", [names[0]]).catch(() => undefined);
    await db.client.releaseConnection(connection);
  }
}

export async function chunksEnterVectorTail(db: Db, orgId: string, decisions?: LRUCache<string, boolean>): Promise<boolean> {
  const known = decisions?.get(orgId);
  if (known !== undefined) return known;
  const { rows } = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = ? AND relnamespace = current_schema()::regnamespace) AS indexed,
            (SELECT count(*) FROM (SELECT 1 FROM document_chunks WHERE org_id = ? AND vector_pending LIMIT ?) tail)::int AS tail`,
    [orgVectorIndexName(orgId), orgId, VECTOR_TAIL_MAX_CHUNKS],
  );
  const pending = Boolean(rows[0].indexed) && Number(rows[0].tail) < VECTOR_TAIL_MAX_CHUNKS;
  decisions?.set(orgId, pending);
  return pending;
}

/** The worker's memory of tail decisions (its deps); `chunksEnterVectorTail` without one looks again every time. */
export const vectorTailDecisions = (): LRUCache<string, boolean> => new LRUCache({ max: 10_000, ttl: TAIL_DECISION_TTL_MS });

/** Organisations with pending rows and how many, largest tail first (served by the partial index of pending rows). */
export async function orgsWithVectorTail(db: Db): Promise<Array<{ orgId: string; pending: number }>> {
  const { rows } = await db.raw("SELECT org_id, count(*)::int AS pending FROM document_chunks WHERE vector_pending GROUP BY org_id ORDER BY pending DESC");
  return (rows as Array<{ org_id: string; pending: number }>).map((row) => ({ orgId: row.org_id, pending: Number(row.pending) }));
}

/**
 * Moves up to `batch` of the organisation's pending rows into its graph, in one transaction:
 * clearing `vector_pending` writes each row's new version, which enters the org's index (its
 * predicate now holds) and leaves the index of pending rows. A search's one statement sees each
 * row either pending (in its exact part) or folded (in the graph), never neither; a fold that dies
 * rolls back whole and its rows stay pending. SKIP LOCKED: two sweeps fold different rows.
 * Returns the rows folded (0: the tail is empty).
 */
export async function foldVectorTail(db: Db, orgId: string, batch: number): Promise<number> {
  const result = await db.raw(
    // Materialised: as a join's inner side the LIMITed, SKIP LOCKED subquery could be run again and pick more rows.
    `WITH folded AS MATERIALIZED (SELECT id FROM document_chunks WHERE org_id = ? AND vector_pending LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE document_chunks c SET vector_pending = false FROM folded WHERE c.id = folded.id AND c.org_id = ?`,
    [orgId, batch, orgId],
  );
  return result.rowCount ?? 0;
}
