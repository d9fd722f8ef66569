/**
 * The infrastructure the product needs, started as child processes for one run: a real
 * redis-server, a throwaway PostgreSQL cluster with pgvector (or, with TEST_POSTGRES=pglite,
 * PGlite over the wire protocol in its own process) and the scripted model server. The test
 * stack (test/support/stack.ts) and the eval harness build on it.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resetConfig } from "../../lib/config";
import { resetLogger } from "../../lib/logger";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import { baseBackup, findPostgresServer, initCluster, startCluster, type RunningCluster } from "../../launcher/embedded/postgres-cluster";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { startScriptedLlm, type ScriptedLlm } from "./scripted-llm";
import { TEST_TUNABLES_VARIABLE } from "../../lib/test-tunables";

const children: ManagedChild[] = [];
let tempDir: string | undefined;

export type TestDatabaseEngine = "server" | "pglite";

/**
 * Which engine the suite runs on: `server` (default, the production engine) or `pglite`, the
 * `npm start` fallback, which scripts/test.sh also runs the fallback-critical suites on.
 */
export function testDatabaseEngine(): TestDatabaseEngine {
  const value = process.env.TEST_POSTGRES ?? "server";
  if (value !== "server" && value !== "pglite") throw new Error(`TEST_POSTGRES must be "server" or "pglite", not "${value}"`);
  return value;
}

/**
 * Settings of a throwaway cluster: nothing it holds must survive a crash of the machine, so
 * durability is off for speed; connections are plenty for every pool the suite opens.
 */
const THROWAWAY_SETTINGS = { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: 300 };

export interface TestClusterOptions {
  /** Overrides of the throwaway settings, e.g. a small max_connections. */
  settings?: Record<string, string | number>;
}

export interface TestCluster {
  url: string;
  dataDir: string;
  port: number;
  /** The running postmaster's pid (to kill it). */
  postmasterPid(): number | undefined;
  /** Starts the postmaster again on the same data and port, e.g. after it was killed. */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
}

/**
 * A fresh PostgreSQL cluster with pgvector in its own temporary directory, on a free port, for
 * tests that need a server of their own (to kill, to fill up).
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  return startOwnCluster("skillnet-pg-", options, (bindir, dataDir) => initCluster({ bindir, dataDir }));
}

/**
 * A streaming replica of a test cluster: `pg_basebackup -R` from it into a second cluster on its
 * own port, started as a hot standby with the same settings (`settings` on top).
 */
export async function startTestReplica(primary: TestCluster, options: TestClusterOptions = {}): Promise<TestCluster> {
  return startOwnCluster("skillnet-pg-replica-", options, (bindir, dataDir) => baseBackup({ bindir, dataDir, primaryPort: primary.port }));
}

/** A cluster in a temp folder of its own on a free port, its data made by `create` (initdb, or a base backup). */
async function startOwnCluster(prefix: string, options: TestClusterOptions, create: (bindir: string, dataDir: string) => void): Promise<TestCluster> {
  const server = findPostgresServer();
  if (!server.found) {
    throw new Error(
      `${server.reason}\nRun \`bash scripts/ensure-deps.sh --postgres-required\` (as root on Debian/Ubuntu it installs one), or set TEST_POSTGRES=pglite to test on PGlite.`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // The server may run as the postgres OS user (we are root): it must reach its data directory.
  chmodSync(dir, 0o711);
  const dataDir = join(dir, "pg");
  create(server.bindir, dataDir);
  const settings = { ...THROWAWAY_SETTINGS, ...options.settings };
  const port = await findFreePort();
  const start = () => startCluster({ bindir: server.bindir, dataDir, port, settings });
  let current: RunningCluster = await start();
  return {
    url: current.url,
    dataDir,
    port,
    postmasterPid: () => current.postmasterPid(),
    async restart() {
      await current.child.stop(5_000).catch(() => undefined);
      // Backends of a killed postmaster hold its shared memory for a moment; until they are gone it refuses to start.
      for (let attempt = 1; ; attempt++) {
        try {
          current = await start();
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    async stop() {
      await current.child.stop(5_000).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startTestPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  if (testDatabaseEngine() === "server") return startTestCluster();
  const { child, match } = await spawnUntilReady(
    process.execPath,
    ["--import", "tsx", "launcher/embedded/postgres-server.ts", "--port", String(await findFreePort()), "--exit-with-parent"],
    { name: "pglite", readyPattern: /^READY (\S+)/, timeoutMs: 60_000 },
  );
  return { url: match[1]!, stop: () => child.stop(5_000) };
}

let stopPostgres: (() => Promise<void>) | undefined;

/** An address nothing listens on: the database lane has no model, and a call that reaches for one fails at once. */
const NO_MODEL_URL = "http://127.0.0.1:9/v1";

/**
 * Infrastructure only (Redis, Postgres, model server), for tests that start their own processes;
 * `{ model: false }` leaves the model out (the database lane: test/support/database.ts).
 */
export async function startInfrastructure(): Promise<{ env: Record<string, string>; llm: ScriptedLlm }>;
export async function startInfrastructure(options: { model: false }): Promise<{ env: Record<string, string>; llm: null }>;
export async function startInfrastructure({ model = true }: { model?: boolean } = {}): Promise<{ env: Record<string, string>; llm: ScriptedLlm | null }> {
  tempDir = mkdtempSync(join(tmpdir(), "skillnet-test-"));
  const noop = (): void => undefined;
  const [redis, postgres, llm] = await Promise.all([
    findFreePort().then((port) => startEmbeddedRedis({ port, dataDir: join(tempDir!, "redis"), persistent: false, log: noop, exitWithParent: true })),
    startTestPostgres(),
    model ? startScriptedLlm() : Promise.resolve(null),
  ]);
  children.push(redis.child);
  stopPostgres = postgres.stop;
  const env = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    REDIS_URL: redis.url,
    DATABASE_URL: postgres.url,
    LLM_BASE_URL: llm?.url ?? NO_MODEL_URL,
    LLM_API_KEY: "sk-test-secret-key-0123456789",
    LLM_MODEL: "scripted-model",
    EMBEDDING_DIMENSIONS: "384",
    JWT_SECRET: randomBytes(24).toString("hex"),
    DEV_LOGIN_ENABLED: "true",
    OPS_ORG: "acme",
    // The test identity provider (test/harness/oidc-provider.ts) listens on loopback, which an admin-chosen URL may reach only
    // when the operator allows it; test/server/routes/sign-in/outbound-requests.test.ts runs servers without this allowance.
    OUTBOUND_ALLOWED_CIDRS: "127.0.0.0/8,::1/128",
    WORKER_CONCURRENCY: "4",
    // The stack's workers keep 16 model-bound slots, as suites count on (test/e2e/fair-queues.test.ts); the
    // load-following default is tested with workers of its own (test/workers/adaptive-concurrency-worker.test.ts).
    WORKER_MODEL_CONCURRENCY: "16",
    // Tunables are constants, not environment variables: the stack's own values reach this process's
    // parseConfig and every worker a suite spawns from process.env through one test-only variable.
    [TEST_TUNABLES_VARIABLE]: JSON.stringify({
      // Suites sign in many users from 127.0.0.1; test/server/auth-hardening.test.ts covers the limit.
      RATE_LIMIT_DEV_LOGIN_PER_MINUTE: 100000,
      // Every suite shares the demo organisation; test/server/limits.test.ts covers these limits.
      RATE_LIMIT_ORG_TUTOR_PER_MINUTE: 100000,
      RATE_LIMIT_ORG_ADMIN_PER_MINUTE: 100000,
      RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: 100000,
      RATE_LIMIT_ORG_REINDEX_PER_MINUTE: 100000,
      RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: 100000,
      // Suites share the demo users and keep sockets open; test/server/sockets/event-limits.test.ts covers the cap.
      SOCKET_MAX_PER_USER: 100000,
      // test/workers/maintenance/chat-retention.test.ts runs the retention sweep itself and reads the record it leaves.
      RETENTION_SWEEP_INTERVAL_MS: 86400000,
      // Suites count the embedding calls of a turn; the sweep would embed earlier suites' questions in the middle of one.
      // test/server/routes/insights/content-gaps.test.ts and test/web/insights.test.ts run it themselves.
      QUESTION_VECTOR_SWEEP_INTERVAL_MS: 86400000,
      // Suites count embedding calls per question and ask the demo organisation the same questions in any order;
      // test/workers/llm/query-embeddings.test.ts and test/workers/tutor/local-model.test.ts turn the cache on.
      EMBEDDING_QUERY_CACHE_TTL_SECONDS: 0,
    }),
  };
  Object.assign(process.env, env);
  resetConfig();
  resetLogger();
  return { env, llm };
}

/** The processes startInfrastructure started (Redis, PGlite), by name, for harnesses that measure their CPU time. */
export function infrastructureProcesses(): Array<{ name: string; pid: number }> {
  return children.filter((child) => child.process.pid !== undefined).map((child) => ({ name: child.name, pid: child.process.pid! }));
}

/** Stops what startInfrastructure started and removes its data. */
export async function stopInfrastructure(): Promise<void> {
  for (const child of children.reverse()) await child.stop(5_000).catch(() => undefined);
  children.length = 0;
  await stopPostgres?.().catch(() => undefined);
  stopPostgres = undefined;
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}
