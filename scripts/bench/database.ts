/**
 * The database a benchmark module runs on. `npm run bench` runs every module once per engine
 * (`--engines=server,pglite`, both by default) and sets BENCH_ENGINE for the one running:
 *
 * - `server`: a fresh PostgreSQL cluster of the machine's server with pgvector (what
 *   scripts/ensure-postgres.sh installs), durable settings as shipped (fsync and synchronous
 *   commit on): the production engine.
 * - `pglite`: PGlite with pgvector over the wire protocol, in its own process: the `npm start`
 *   fallback, one WebAssembly backend that runs one transaction at a time.
 *
 * BENCH_DATABASE_URL, when set, replaces both with your own Postgres.
 */
import { spawnSync } from "node:child_process";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import { findPostgresServer } from "../../launcher/embedded/postgres-cluster";
import { startTestCluster } from "../../test/harness/infrastructure";

export type BenchEngine = "server" | "pglite";

export interface BenchDatabase {
  url: string;
  /** The process whose CPU and memory are the database's (its children counted too), if we started one. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The engine of the module now running (bench.ts sets it); PGlite when run on its own. */
export function currentEngine(): BenchEngine {
  return process.env.BENCH_ENGINE === "server" ? "server" : "pglite";
}

/** How a report names an engine, with versions. */
export function engineLabel(engine: BenchEngine): string {
  if (process.env.BENCH_DATABASE_URL) return "Postgres at BENCH_DATABASE_URL";
  if (engine === "pglite") return "PGlite + pgvector (embedded, one WASM backend, over the wire protocol)";
  const server = findPostgresServer();
  if (!server.found) return "PostgreSQL server (not installed)";
  const version = spawnSync(`${server.bindir}/postgres`, ["--version"], { encoding: "utf8" })
    .stdout.trim()
    .replace(/^postgres \(PostgreSQL\) /, "");
  return `PostgreSQL ${version} server with pgvector (fsync and synchronous_commit on)`;
}

/** Settings of the benchmark's cluster: the shipped durability, room for every pool of a scale-out run. */
const SERVER_SETTINGS = { fsync: "on", synchronous_commit: "on", full_page_writes: "on", max_connections: 300 };

export async function startBenchDatabase(engine: BenchEngine = currentEngine()): Promise<BenchDatabase> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, pid: undefined, stop: async () => undefined };
  if (engine === "server") {
    const cluster = await startTestCluster({ settings: SERVER_SETTINGS });
    return { url: cluster.url, pid: cluster.postmasterPid(), stop: () => cluster.stop() };
  }
  const port = await findFreePort();
  const { child, match } = await spawnUntilReady(
    process.execPath,
    ["--import", "tsx", "launcher/embedded/postgres-server.ts", "--port", String(port), "--exit-with-parent", "--max-connections", "256"],
    { name: "pglite", readyPattern: /^READY (\S+)/, timeoutMs: 60_000 },
  );
  return { url: match[1]!, pid: child.process.pid, stop: () => stopChild(child) };
}

const stopChild = (child: ManagedChild): Promise<void> => child.stop(5_000);
