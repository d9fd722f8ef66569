/**
 * The launcher's own settings: `npm start` only. Where it keeps its data and which ports its
 * embedded services take are nothing the server or the workers read, so they are not in the
 * product's schema (lib/config.ts). docs/configuration.md lists them with the product's settings
 * (`npm run docs:config` reads both schemas), and a bad value is reported the same way.
 */
import { z } from "zod";
import { ConfigError, port } from "../lib/config";

export const launcherSchema = z.object({
  DATA_DIR: z
    .string()
    .default(".data")
    .describe(
      "`npm start` only: holds `postgres/` (the PostgreSQL cluster) or `pglite/`, `redis/`, `jwt-secret`, `postgres-password` and `run/` " +
        "(pids of what it started, and `embedded.env`: how `npm run org` reaches the embedded parts). As root, when the `postgres` OS user cannot reach it (a clone under a 0700 home), the cluster lives in " +
        "`/var/lib/skillnet-chat/<hash>/postgres` instead and `postgres-location` records where.",
    ),
  EMBEDDED_POSTGRES: z
    .enum(["auto", "server", "pglite"])
    .default("auto")
    .describe(
      "`npm start` only, when `DATABASE_URL` is unset: `server` runs a PostgreSQL cluster of its own (an installed server with pgvector, " +
        "which `scripts/ensure-deps.sh` installs), `pglite` the embedded PGlite fallback; `auto` takes whichever `DATA_DIR` already holds, " +
        "else the server when there is one, else PGlite, and says why.",
    ),
  EMBEDDED_POSTGRES_PORT: port
    .default(54329)
    .describe("`npm start` only: port of the embedded Postgres (the local server or PGlite), used when `DATABASE_URL` is unset."),
  EMBEDDED_REDIS_PORT: port.default(6390).describe("`npm start` only: port of the embedded redis-server, used when `REDIS_URL` is unset."),
  EMBEDDED_LLM_PORT: port.default(11435).describe("`npm start` only: port of the offline model server, used when `LLM_BASE_URL` is unset."),
  LAUNCHER_MAX_FAST_CRASHES: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe("`npm start` only: a server or worker that crashes this many times in a row, each within a minute of starting, stops the launcher."),
});

export type LauncherConfig = z.infer<typeof launcherSchema>;

/** The launcher's settings from `env`, or a ConfigError naming every bad one. */
export function parseLauncherConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  const result = launcherSchema.safeParse(env);
  if (!result.success) throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`));
  return result.data;
}
