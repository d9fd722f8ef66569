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
}

interface PooledConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

/**
 * HNSW scans of this session keep going until they have `LIMIT` rows that pass the tenant filter
 * (pgvector 0.8+; a placeholder, ignored, on older versions or before the extension exists), so
 * vector search needs no transaction of its own for it (db/queries/knowledge-search.ts).
 */
const ITERATIVE_SCAN_ON = `DO $$ BEGIN PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', false); EXCEPTION WHEN OTHERS THEN NULL; END $$`;

export function createDb({ url, poolMax = 8, statementTimeoutMs }: DbOptions): Db {
  return knexFactory({
    client: "pg",
    connection: { connectionString: url },
    pool: {
      min: 0,
      max: poolMax,
      // Set on the session rather than as startup parameters, which some proxies (and PGlite's socket server) drop.
      afterCreate: (connection: PooledConnection, done: (error: Error | null, connection: PooledConnection) => void) => {
        const timeout = statementTimeoutMs === undefined ? "" : `SET statement_timeout = ${Math.max(0, Math.floor(statementTimeoutMs))}; `;
        connection.query(`${timeout}${ITERATIVE_SCAN_ON}`, (error) => done(error, connection));
      },
    },
    acquireConnectionTimeout: 30_000,
  });
}

/** `[0.1,0.2,…]`, the literal pgvector parses; bind it and cast with `?::vector`. */
export function toVectorLiteral(vector: number[]): string {
  return pgvector.toSql(vector) as string;
}
