/**
 * PostgreSQL: where it is, its read replica, and how each process uses its pool.
 */
import { z } from "zod";
import { defineSection, optionalString } from "../lib/settings-section";

export const databaseSettings = defineSection({
  environment: {
    DATABASE_URL: optionalString
      .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional())
      .describe(
        "`postgres://` or `postgresql://` URL, with the `vector` extension (pgvector). Required by the server, the workers and `db:prepare`. " +
          "Unset, `npm start` runs a local PostgreSQL of its own, or PGlite (see `EMBEDDED_POSTGRES`).",
      ),
    DATABASE_READ_URL: optionalString
      .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional())
      .describe(
        "A streaming replica of `DATABASE_URL`. Set, retrieval searches and history reads go to it; everything that must read its own " +
          "writes stays on the primary. A replica that is down or lags more than `DATABASE_READ_MAX_LAG_MS` is skipped for the primary.",
      ),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(8).describe("Knex pool size per process."),
  },
  why: {
    DATABASE_URL: "Required outside `npm start`: where your PostgreSQL (with pgvector) is.",
    DATABASE_READ_URL: "You run a streaming replica and want searches and history reads off the primary.",
    DATABASE_POOL_MAX: "Fit the connections of all server and worker processes under PostgreSQL's `max_connections`.",
  },
  tunables: {
    // The statement timeout and the pool wait bound a request's worst case under load
    // (test/server/statement-timeout.test.ts, test/db/real-server.test.ts); the lag bound is the replica check's.
    DATABASE_READ_MAX_LAG_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5_000)
      .describe("How far behind the primary the read replica may replay before its reads go to the primary (checked every second)."),
    DATABASE_POOL_ACQUIRE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(5_000)
      .describe(
        "How long an HTTP request waits for a free connection of the server's pool. Past it the request answers `503 SERVICE_UNAVAILABLE`, " +
          "so a full pool turns callers away quickly instead of queueing them. Workers wait up to 30 s (then the job is put back).",
      ),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(15_000)
      .describe(
        "Postgres cancels any statement of the server or workers running longer than this (`0` = never), so one runaway query cannot hold " +
          "a pooled connection; the request answers `503 DATABASE_TIMEOUT`. Migrations and scripts run without it.",
      ),
  },
});
