/**
 * The Knex instance factory: one pool per process. Vectors travel as pgvector's text form
 * (`toVectorLiteral`) and are cast in SQL, so no per-connection type registration is needed.
 */
import knexFactory, { type Knex } from "knex";
import pgvector from "pgvector";

export type Db = Knex;

export interface DbOptions {
  url: string;
  poolMax?: number;
  /**
   * Postgres cancels any statement of this pool running longer (error 57014), so a runaway
   * query frees its connection instead of starving the pool. Unset for migrations and scripts,
   * whose long statements are expected.
   */
  statementTimeoutMs?: number;
  /** How long a caller waits for a free connection before Knex gives up ("Timeout acquiring a connection"). */
  acquireTimeoutMs?: number;
}

interface PooledConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

/**
 * Candidates an HNSW scan keeps in its queue. With iterative scans, pgvector's default of 40 found
 * 61 % of the true ten nearest chunks of an org holding a tenth of 10,000 rows; 100 found all of
 * them at the same p50 (bench/results.md, measure 5).
 */
export const HNSW_EF_SEARCH = 100;

/**
 * Set once per pooled session: HNSW scans keep going until they have `LIMIT` rows that pass the
 * tenant filter (pgvector 0.8+), with HNSW_EF_SEARCH candidates, so vector search needs no
 * transaction of its own (db/queries/knowledge-search.ts). On an older pgvector, or before the
 * extension exists, the settings are placeholders and ignored.
 */
const HNSW_SESSION_SETTINGS = `DO $$ BEGIN
  PERFORM set_config('hnsw.ef_search', '${HNSW_EF_SEARCH}', false);
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', false);
EXCEPTION WHEN OTHERS THEN NULL; END $$`;

export function createDb({ url, poolMax = 8, statementTimeoutMs, acquireTimeoutMs = 30_000 }: DbOptions): Db {
  return knexFactory({
    client: "pg",
    connection: { connectionString: url },
    pool: {
      min: 0,
      max: poolMax,
      // Set on the session rather than as startup parameters, which some proxies (and PGlite's socket server) drop.
      afterCreate: (connection: PooledConnection, done: (error: Error | null, connection: PooledConnection) => void) => {
        const timeout = statementTimeoutMs === undefined ? "" : `SET statement_timeout = ${Math.max(0, Math.floor(statementTimeoutMs))}; `;
        connection.query(`${timeout}${HNSW_SESSION_SETTINGS}`, (error) => done(error, connection));
      },
    },
    acquireConnectionTimeout: acquireTimeoutMs,
    // A failed query's error message starts with its SQL: with placeholders ($1), never the bound
    // values (knex 3, lib/execution/internal/query-executioner.js), so an email or a document's
    // text cannot ride along into a log line, a job's failed reason or a stored error.
    compileSqlOnError: false,
  });
}

/** `[0.1,0.2,…]`, the literal pgvector parses; bind it and cast with `?::vector`. */
export function toVectorLiteral(vector: number[]): string {
  return pgvector.toSql(vector) as string;
}
