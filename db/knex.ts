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
}

export function createDb({ url, poolMax = 8 }: DbOptions): Db {
  return knexFactory({
    client: "pg",
    connection: { connectionString: url },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 30_000,
  });
}

/** `[0.1,0.2,…]`, the literal pgvector parses; bind it and cast with `?::vector`. */
export function toVectorLiteral(vector: number[]): string {
  return pgvector.toSql(vector) as string;
}
