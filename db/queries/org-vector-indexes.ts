/**
 * One HNSW index per large organisation: `document_chunks_embedding_org_<id>`, over the chunks of
 * that organisation only (`WHERE org_id = '<id>'`). A shared graph over every organisation lost
 * its recall under the tenant filter (0.86–0.94 at 200,000 rows, 0.12–0.29 at 100,000 on harder
 * data); a graph of the organisation's own rows has no filter to fight: at 1M chunks over 200
 * organisations it found ≥ 0.959 of the true ten nearest at every organisation size, 0.99–1.00
 * below 50k chunks, at ef_search 200 (bench/results-vector-1m.md).
 *
 * Built with CREATE INDEX CONCURRENTLY, so ingestion and search go on meanwhile; until
 * `pg_index.indisvalid` is true the planner cannot use it and vectorSearch searches exactly. A
 * build holds a session advisory lock on the organisation, so two sweeps never build (or drop)
 * the same index at once, and a build that died (cancelled, connection lost, server restarted)
 * leaves an invalid index that the next holder of the lock drops and builds again.
 */
import type { Db } from "../knex";

const NAME_PREFIX = "document_chunks_embedding_org_";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organisation id as it appears, validated, in index names and predicates (it is spliced into SQL). */
function checkedOrgId(orgId: string): string {
  if (!UUID.test(orgId)) throw new TypeError(`not an organisation id: ${orgId}`);
  return orgId.toLowerCase();
}

/** 30 + 32 characters: within Postgres's 63-character identifiers. */
export function orgVectorIndexName(orgId: string): string {
  return `${NAME_PREFIX}${checkedOrgId(orgId).replaceAll("-", "")}`;
}

/**
 * The predicate of the organisation's index and of every search meant to use it. The planner
 * matches a partial index by proving the query's WHERE implies the index's, so the search names
 * the organisation as the same literal rather than as a bound parameter.
 */
export function orgVectorPredicate(orgId: string, column = "org_id"): string {
  return `${column} = '${checkedOrgId(orgId)}'::uuid`;
}

export type OrgVectorIndexState = "valid" | "building-or-invalid" | "absent";

export async function orgVectorIndexState(db: Db, orgId: string): Promise<OrgVectorIndexState> {
  const { rows } = await db.raw(
    `SELECT i.indisvalid AND i.indisready AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
      WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace`,
    [orgVectorIndexName(orgId)],
  );
  if (rows.length === 0) return "absent";
  return rows[0].valid ? "valid" : "building-or-invalid";
}

/** Organisations holding more than `minChunks` published chunks whose index is not valid yet, largest first: one query, however many orgs. */
export async function orgsNeedingVectorIndex(db: Db, minChunks: number): Promise<Array<{ orgId: string; chunks: number }>> {
  const { rows } = await db.raw(
    `SELECT s.org_id, s.chunks FROM (
        SELECT d.org_id, sum(d.chunk_count)::bigint AS chunks FROM documents d GROUP BY d.org_id HAVING sum(d.chunk_count) > ?
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
    if (state === "valid") return "already-valid";
    // The pool's statement timeout is for queries; a build of 100,000 rows takes minutes.
    timeout = (await run("SHOW statement_timeout")).rows[0].statement_timeout as string;
    await run("SET statement_timeout = 0");
    await run(`SET maintenance_work_mem = '${Math.floor(memoryMb)}MB'`);
    // Under our lock an invalid index is no build in progress but a dead one's leftover.
    if (state === "building-or-invalid") await run(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await run(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON document_chunks USING hnsw (embedding vector_cosine_ops) WHERE ${orgVectorPredicate(orgId)}`);
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
  const { rows } = await db.raw("SELECT relname FROM pg_class WHERE relkind = 'i' AND relname LIKE ? AND relnamespace = current_schema()::regnamespace", [
    `${NAME_PREFIX}%`,
  ]);
  const names = (rows as Array<{ relname: string }>).map((row) => row.relname);
  for (const name of names) await db.raw(`DROP INDEX IF EXISTS ${name}`);
  return names;
}
