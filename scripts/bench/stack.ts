/**
 * The benchmark's stack: redis-server, the database of the engine under test (database.ts: a
 * PostgreSQL server with pgvector, PGlite, or your Postgres via BENCH_DATABASE_URL), the bench
 * model server, migrations and the demo seed, then N server and M worker processes
 * started from their real entry points. Every part is its own process, so CPU and memory are
 * measured per process and the bench driver's clients do not steal the pipeline's time.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { parseConfig, resetConfig } from "../../lib/config";
import { resetLogger } from "../../lib/logger";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { startClusterDeployment, type ClusterDeployment } from "../../test/harness/redis-cluster";
import { prepareDatabase } from "../../ops/cli/prepare-database";
import { startBenchDatabase } from "./database";
import { TEST_TUNABLES_VARIABLE } from "../../lib/test-tunables";

export interface BenchProcess {
  role: string;
  /** Unset for the database, which the stack stops through database.ts. */
  child?: ManagedChild;
  pid: number;
}

export interface BenchStack {
  env: Record<string, string>;
  redisUrl: string;
  databaseUrl: string;
  modelUrl: string;
  /** Base URLs of the server processes. */
  servers: string[];
  processes: BenchProcess[];
  /** A Redis connection for INFO and clean-ups. */
  redis: Redis;
  /** Set when the stack runs on a Redis Cluster (StackOptions.redisCluster). */
  cluster?: ClusterDeployment;
  setModel(settings: { tokens?: number; intervalMs?: number; firstTokenMs?: number }): Promise<void>;
  /** Ends the probe window of every server and worker process (starting a new one) and returns its figures. */
  probeWindow(): Promise<Array<{ role: string } & ProbeReport>>;
  stop(): Promise<void>;
}

export interface ProbeReport {
  pid: number;
  windowMs: number;
  eventLoopDelay: { p50: number; p99: number; max: number };
  poolWait: { count: number; totalMs: number; p50: number; p99: number };
  query: { count: number; totalMs: number; p50: number; p99: number };
  redis: { count: number; totalMs: number; p50: number; p99: number };
  rssMb: number;
  /** Calls per SQL statement (first 120 characters) and per Redis command the process sent, in the window. */
  statements: Record<string, number>;
  commands: Record<string, number>;
  /** With BENCH_STAMP_AGES set: how old the bench model's stamped tokens were at each hop the process saw (stamp-ages.mjs). */
  stampAges?: Record<string, StampAge>;
}

export interface StampAge {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface StackOptions {
  servers?: number;
  workers?: number;
  /** Extra environment for server and worker processes (e.g. WORKER_CONCURRENCY). */
  env?: Record<string, string>;
  /** A 3-primary Redis Cluster (test/harness/redis-cluster.ts) with this many QUEUE_SHARDS, instead of one redis-server. */
  redisCluster?: { queueShards: number };
}

const TSX = ["--import", "tsx"];
/** BENCH_CHILD_OUTPUT=1 shows what servers and workers print (with BENCH_LOG_LEVEL=info, their logs). */
const childOutput = process.env.BENCH_CHILD_OUTPUT ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
/** Server and worker processes carry the probe (probe.mjs) so the bench can see where they wait. */
// The tracing preload, as the launcher and the image load it: inert unless the bench sets OTEL_EXPORTER_OTLP_ENDPOINT (tracing.ts).
const PROBED = [...TSX, "--import", "./scripts/bench/probe.mjs", "--import", "./lib/telemetry/register.ts"];

function baseEnv(redisUrl: string, databaseUrl: string, modelUrl: string): Record<string, string> {
  return {
    // Not production: dev-login (how the clients sign in) is refused there; `test` so the processes take
    // the bench's tunables below (they are constants otherwise, out of any deployment's reach).
    NODE_ENV: "test",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "silent",
    REDIS_URL: redisUrl,
    DATABASE_URL: databaseUrl,
    LLM_BASE_URL: modelUrl,
    LLM_API_KEY: "sk-bench-0123456789abcdef",
    LLM_MODEL: "bench-model",
    EMBEDDING_DIMENSIONS: "384",
    JWT_SECRET: randomBytes(24).toString("hex"),
    DEV_LOGIN_ENABLED: "true",
    HOST: "127.0.0.1",
    // The benchmark is the load: no limit may refuse it. Every bench session is the same employee: the
    // per-user socket cap would be the load's.
    [TEST_TUNABLES_VARIABLE]: JSON.stringify({
      RATE_LIMIT_DEV_LOGIN_PER_MINUTE: 1000000,
      RATE_LIMIT_TUTOR_PER_MINUTE: 1000000,
      RATE_LIMIT_ORG_TUTOR_PER_MINUTE: 1000000,
      RATE_LIMIT_UPLOADS_PER_MINUTE: 1000000,
      RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: 1000000,
      RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: 1000000,
      RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: 1000000,
      SOCKET_MAX_PER_USER: 100000,
    }),
    WORKER_CONCURRENCY: "8",
  };
}

/** Every process a stack started and has not stopped yet: killed if the bench exits early. */
const running = new Set<number>();
process.once("exit", () => {
  for (const pid of running) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Has a process killed with the others if the bench exits early (for parts started outside a stack); call the result once it has stopped. */
export function killOnExit(pid: number): () => void {
  running.add(pid);
  return () => running.delete(pid);
}

export async function startBenchStack(options: StackOptions = {}): Promise<BenchStack> {
  const tempDir = mkdtempSync(join(tmpdir(), "skillnet-bench-"));
  const processes: BenchProcess[] = [];
  const track = (role: string, child: ManagedChild): void => {
    processes.push({ role, child, pid: child.process.pid! });
    running.add(child.process.pid!);
  };
  let stopDatabase: (() => Promise<void>) | undefined;
  try {
    return await startParts(options, tempDir, processes, track, (stop) => (stopDatabase = stop));
  } catch (error) {
    for (const p of processes) await p.child?.stop(2_000).catch(() => undefined);
    await stopDatabase?.().catch(() => undefined);
    rmSync(tempDir, { recursive: true, force: true });
    throw error;
  }
}

async function startParts(
  options: StackOptions,
  tempDir: string,
  processes: BenchProcess[],
  track: (role: string, child: ManagedChild) => void,
  onDatabase: (stop: () => Promise<void>) => void,
): Promise<BenchStack> {
  const noop = (): void => undefined;
  const [redis, database, model] = await Promise.all([
    options.redisCluster
      ? startClusterDeployment().then(async (cluster) => {
          await cluster.ready();
          return { cluster, url: "", child: undefined };
        })
      : findFreePort().then(async (port) => ({
          cluster: undefined,
          ...(await startEmbeddedRedis({ port, dataDir: join(tempDir, "redis"), persistent: false, log: noop })),
        })),
    startBenchDatabase(),
    spawnUntilReady(process.execPath, [...TSX, "scripts/bench/model-server.ts"], { name: "model", readyPattern: /^READY (\S+)/, timeoutMs: 30_000 }),
  ]);
  if (redis.child) track("redis", redis.child);
  onDatabase(database.stop);
  if (database.pid) processes.push({ role: "postgres", pid: database.pid });
  track("model", model.child);
  const databaseUrl = database.url;
  const modelUrl = model.match[1]!;
  const clusterEnv: Record<string, string> = redis.cluster
    ? { REDIS_CLUSTER_NODES: redis.cluster.nodes, QUEUE_SHARDS: String(options.redisCluster!.queueShards) }
    : {};
  const env = { ...baseEnv(redis.url, databaseUrl, modelUrl), ...clusterEnv, ...(options.env ?? {}) };
  const previous = { ...process.env };
  Object.assign(process.env, env);
  resetConfig();
  resetLogger();
  await prepareDatabase(parseConfig(process.env));
  process.env = previous;
  resetConfig();

  const probeDir = join(tempDir, "probes");
  mkdirSync(probeDir);
  const childEnv = { ...process.env, ...env, BENCH_PROBE_DIR: probeDir };
  const workerCount = options.workers ?? 1;
  const serverCount = options.servers ?? 1;
  const workers = await Promise.all(
    Array.from({ length: workerCount }, () =>
      spawnUntilReady(process.execPath, [...PROBED, "workers/main.ts"], {
        name: "worker",
        readyPattern: /^READY workers/,
        timeoutMs: 60_000,
        env: childEnv,
        ...(childOutput ? { onOutput: childOutput } : {}),
      }),
    ),
  );
  workers.forEach((w, i) => track(`worker${workerCount > 1 ? ` ${i + 1}` : ""}`, w.child));
  const servers = await Promise.all(
    Array.from({ length: serverCount }, async () => {
      const port = await findFreePort();
      return spawnUntilReady(process.execPath, [...PROBED, "server/main.ts"], {
        name: "server",
        readyPattern: /^READY server (\S+)/,
        timeoutMs: 60_000,
        env: { ...childEnv, PORT: String(port) },
        ...(childOutput ? { onOutput: childOutput } : {}),
      });
    }),
  );
  servers.forEach((s, i) => track(`server${serverCount > 1 ? ` ${i + 1}` : ""}`, s.child));

  // On a cluster, a plain connection to one primary: INFO-style reads only (the bench reads shards through `cluster`).
  const firstPrimary = redis.cluster ? (await redis.cluster.primaries())[0]!.port : 0;
  const client = redis.cluster
    ? new Redis({ host: "127.0.0.1", port: firstPrimary, lazyConnect: false, maxRetriesPerRequest: 3 })
    : new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const stack: BenchStack = {
    env,
    redisUrl: redis.url,
    databaseUrl,
    modelUrl,
    servers: servers.map((s) => s.match[1]!),
    processes,
    redis: client,
    cluster: redis.cluster,
    setModel: (settings) => setBenchModel(modelUrl, settings),
    probeWindow: () =>
      endProbeWindow(
        probeDir,
        processes.filter((p) => /^(server|worker)/.test(p.role)),
      ),
    async stop() {
      client.disconnect();
      // Pipeline first (servers, workers), then what they depend on.
      const order = ["server", "worker", "model", "postgres", "redis"];
      for (const role of order) {
        await Promise.all(processes.filter((p) => p.role.startsWith(role)).map((p) => p.child?.stop(5_000).catch(() => undefined)));
        if (role === "postgres") await database.stop().catch(() => undefined);
      }
      await redis.cluster?.stop();
      for (const p of processes) running.delete(p.pid);
      rmSync(tempDir, { recursive: true, force: true });
    },
  };
  return stack;
}

/** Changes the bench model's answers (model-server.ts `POST /bench/settings`). */
/** What `POST /bench/settings` takes (model-server.ts). */
export interface BenchModelSettings {
  tokens?: number;
  intervalMs?: number;
  firstTokenMs?: number;
  callMs?: number;
  callMsByKind?: Partial<Record<"classify" | "modules" | "summary" | "tools" | "other", number>>;
  embeddingMs?: number;
}

export async function setBenchModel(modelUrl: string, settings: BenchModelSettings): Promise<void> {
  const response = await fetch(modelUrl.replace(/\/v1$/, "/bench/settings"), { method: "POST", body: JSON.stringify(settings) });
  if (!response.ok) throw new Error(`model settings refused: ${response.status}`);
}

/** Ends the probe window of `probed` (SIGUSR2, probe.mjs) and reads what each wrote to `probeDir`. */
export async function endProbeWindow(probeDir: string, probed: Array<{ role: string; pid: number }>): Promise<Array<{ role: string } & ProbeReport>> {
  for (const file of readdirSync(probeDir)) rmSync(join(probeDir, file));
  for (const p of probed) process.kill(p.pid, "SIGUSR2");
  const deadline = Date.now() + 5_000;
  while (readdirSync(probeDir).length < probed.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const files = new Set(readdirSync(probeDir));
  return probed
    .filter((p) => files.has(`${p.pid}.json`))
    .map((p) => ({ role: p.role, ...(JSON.parse(readFileSync(join(probeDir, `${p.pid}.json`), "utf8")) as ProbeReport) }));
}

/** CPU time (user + system, ms) and resident memory (MB) of a process, from /proc. */
export function processUsage(pid: number): { cpuMs: number; rssMb: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rssPages = Number(fields[21]);
    return { cpuMs: (ticks * 1000) / 100, rssMb: (rssPages * 4096) / 1024 / 1024 };
  } catch {
    return { cpuMs: NaN, rssMb: NaN };
  }
}

/**
 * CPU of a process and its live children (a postmaster's backends), summed; a backend that exited
 * meanwhile is not counted. Memory is the process's own: backends share the server's buffers.
 */
export function processTreeUsage(pid: number): { cpuMs: number; rssMb: number } {
  const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
  const own = processUsage(pid);
  return {
    cpuMs: children
      .map((child) => processUsage(child).cpuMs)
      .filter(Number.isFinite)
      .reduce((sum, ms) => sum + ms, own.cpuMs),
    rssMb: own.rssMb,
  };
}

/** Per-process CPU used between `start()` and `stop()`, as a share of one core (a process's children included). */
export function cpuMeter(processes: Array<{ role: string; pid: number }>) {
  const started = performance.now();
  const before = new Map(processes.map((p) => [p.pid, processTreeUsage(p.pid).cpuMs]));
  const selfBefore = process.cpuUsage();
  return {
    stop(): Array<{ role: string; corePercent: number; rssMb: number }> {
      const elapsed = performance.now() - started;
      const self = process.cpuUsage(selfBefore);
      const rows = processes.map((p) => {
        const usage = processTreeUsage(p.pid);
        return { role: p.role, corePercent: ((usage.cpuMs - before.get(p.pid)!) / elapsed) * 100, rssMb: usage.rssMb };
      });
      rows.push({ role: "bench clients", corePercent: ((self.user + self.system) / 1000 / elapsed) * 100, rssMb: process.memoryUsage().rss / 1024 / 1024 });
      return rows;
    },
  };
}

/** `INFO commandstats` as command → calls. */
export async function commandCounts(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info("commandstats");
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(match[1]!, Number(match[2]));
  return counts;
}

/** Calls per command between two snapshots, largest first (the INFO call itself excluded). */
export function commandDelta(before: Map<string, number>, after: Map<string, number>): Array<[string, number]> {
  const delta: Array<[string, number]> = [];
  for (const [name, calls] of after) {
    const diff = calls - (before.get(name) ?? 0) - (name === "info" ? 1 : 0);
    if (diff > 0) delta.push([name, diff]);
  }
  return delta.sort((a, b) => b[1] - a[1]);
}
