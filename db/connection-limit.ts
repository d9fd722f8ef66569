/**
 * A PostgreSQL whose `max_connections` are all taken refuses every new session with SQLSTATE
 * 53300 ("sorry, too many clients already"). At start-up that is a sizing problem an operator
 * must fix, so the server and workers refuse to start with a message that says what to change,
 * instead of coming up with a pool that can never connect. Any other failure (Postgres still
 * starting, unreachable) is left to the usual readiness checks and outage handling.
 */
import pg from "pg";

/** 53300 too_many_connections; 53300 is also what a role's CONNECTION LIMIT raises. */
export function isTooManyConnections(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === "53300";
}

export class DatabaseFullError extends Error {
  constructor(poolMax: number, cause: unknown) {
    super(
      "PostgreSQL refused a connection: all of its max_connections are in use (SQLSTATE 53300, too many clients). " +
        `Each server and worker process keeps up to DATABASE_POOL_MAX (${poolMax}) connections: raise max_connections on the ` +
        "PostgreSQL server, lower DATABASE_POOL_MAX, or stop processes that hold connections, then start again.",
      { cause },
    );
    this.name = "DatabaseFullError";
  }
}

/**
 * Opens (and closes) one connection outside the pool, which would keep retrying until its
 * acquire timeout; throws DatabaseFullError when Postgres has no slot left for it.
 */
export async function refuseIfDatabaseFull(url: string, poolMax: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    if (isTooManyConnections(error)) throw new DatabaseFullError(poolMax, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}
