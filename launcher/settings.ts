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
});

/** Why an operator would change each launcher setting (docs/configuration.md prints it). */
export const LAUNCHER_WHY: { readonly [K in keyof typeof launcherSchema.shape]: string } = {
  DATA_DIR: "Keep the embedded database and secrets somewhere else than the clone (a bigger disk, a path that survives a fresh checkout).",
  EMBEDDED_POSTGRES: "Force PGlite on a machine without PostgreSQL, or the real server when both exist.",
  EMBEDDED_POSTGRES_PORT: "Another program (a PostgreSQL of your own) already uses 54329.",
  EMBEDDED_REDIS_PORT: "Another program already uses 6390.",
  EMBEDDED_LLM_PORT: "Another program already uses 11435 (also the port of `npm run offline-llm` run on its own).",
};

/**
 * Crashes in a row, each within a minute of starting, after which `npm start` stops restarting a
 * server or worker and stops: five covers a dependency that comes back within the supervisor's
 * back-off (1, 2, 4, 8 s) and still ends a crash loop in under half a minute.
 */
export const MAX_FAST_CRASHES = 5;

export type LauncherConfig = z.infer<typeof launcherSchema>;

/** The launcher's settings from `env`, or a ConfigError naming every bad one. */
export function parseLauncherConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  const result = launcherSchema.safeParse(env);
  if (!result.success) throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`));
  return result.data;
}
