/**
 * The product as `npm start` runs it, for the benchmark: `launcher/start.ts` with its embedded
 * PostgreSQL server and redis-server, its server and worker children and their defaults (JSON
 * logs at the default level, the launcher relaying every line), pointed at the bench model
 * (model-server.ts) instead of the offline one. Only what the bench needs to be the load is set:
 * the per-user limits (every bench session is the same employee) and dev-login.
 *
 * Every Node process of the product loads the bench probe through NODE_OPTIONS (probe.mjs: event-
 * loop delay, token ages per hop with BENCH_STAMP_AGES), as the launcher passes its environment on.
 * The processes are found by walking the launcher's descendants in /proc and named by command line.
 */
import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import { endProbeWindow, killOnExit, processUsage, setBenchModel, type BenchModelSettings, type ProbeReport } from "./stack";
import { TEST_TUNABLES_VARIABLE } from "../../lib/test-tunables";

export interface LaunchedProduct {
  baseUrl: string;
  redis: Redis;
  /** The product's processes by role (launcher, server, worker, redis, postgres with its backends), found afresh. */
  processes(): Array<{ role: string; pid: number }>;
  setModel(settings: BenchModelSettings): Promise<void>;
  modelPid: number;
  /** Lines the launcher printed (the product's logs) since the last call. */
  takeLogLines(): number;
  /**
   * Ends the probe window of the server and worker processes and returns their figures; the next
   * window watches the token stamps unless `stampAges` is false (a round measuring CPU per token).
   */
  probeWindow(next?: { stampAges: boolean }): Promise<Array<{ role: string } & ProbeReport>>;
  stop(): Promise<void>;
}

const PROBE = pathToFileURL(resolve("scripts/bench/probe.mjs")).href;

/** Every descendant of `root` (children before grandchildren), from /proc's parent links. */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parentOf.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.shift()!;
    for (const [pid, ppid] of parentOf)
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
  }
  return found;
}

/** A process's role by its command line; watchdogs and shells are "launcher" (they do the launcher's work). */
function roleOf(pid: number): string {
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "gone";
  }
  if (cmdline.includes("workers/main.ts")) return "worker";
  if (cmdline.includes("server/main.ts")) return "server";
  if (cmdline.includes("redis-server")) return "redis";
  if (/postgres|postmaster/.test(cmdline)) return "postgres";
  return "launcher";
}

export async function launchProduct(modelUrl: string, modelChild: ManagedChild, env: Record<string, string> = {}): Promise<LaunchedProduct> {
  const dataDir = mkdtempSync(join(tmpdir(), "skillnet-bench-launch-"));
  const probeDir = join(dataDir, "probes");
  mkdirSync(probeDir);
  const stampPauseFile = join(dataDir, "stamp-ages-paused");
  const [port, postgresPort, redisPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
  const logFile = createWriteStream(join(dataDir, "launcher.log"));
  let logLines = 0;
  const launcherEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    // Not production (dev-login is how the clients sign in); `test` so the launched processes take the
    // bench's tunables below (they are constants otherwise, out of any deployment's reach).
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    EMBEDDED_POSTGRES: process.env.BENCH_ENGINE === "pglite" ? "pglite" : "server",
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    EMBEDDED_REDIS_PORT: String(redisPort),
    LLM_BASE_URL: modelUrl,
    LLM_API_KEY: "sk-bench-0123456789abcdef",
    LLM_MODEL: "bench-model",
    DEV_LOGIN_ENABLED: "true",
    // The bench's sessions are all one employee of one organisation: its per-user limits would be the load's, not the product's.
    [TEST_TUNABLES_VARIABLE]: JSON.stringify({
      RATE_LIMIT_DEV_LOGIN_PER_MINUTE: 1000000,
      RATE_LIMIT_TUTOR_PER_MINUTE: 1000000,
      RATE_LIMIT_ORG_TUTOR_PER_MINUTE: 1000000,
      RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: 1000000,
      RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: 1000000,
      SOCKET_MAX_PER_USER: 100000,
    }),
    AI_MONTHLY_TOKENS_PER_ORG: "100000000000",
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${PROBE}`.trim(),
    BENCH_PROBE_DIR: probeDir,
    BENCH_STAMP_AGES_PAUSE_FILE: stampPauseFile,
    ...env,
  };
  for (const unset of ["DATABASE_URL", "REDIS_URL", "LOG_LEVEL", "WORKER_CONCURRENCY", "WORKER_QUEUES"]) if (!(unset in env)) delete launcherEnv[unset];
  let launcher: ChildProcess | undefined;
  const { child } = await spawnUntilReady(process.execPath, ["--import", "tsx", "launcher/start.ts"], {
    name: "launcher",
    readyPattern: /^skillnet-chat is running\./,
    timeoutMs: 180_000,
    env: launcherEnv,
    onOutput: (line) => {
      logLines += 1;
      logFile.write(`${line}\n`);
    },
  });
  launcher = child.process;
  const forget = killOnExit(launcher.pid!);
  const redis = new Redis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: 3 });
  const processes = () =>
    descendants(launcher!.pid!)
      .map((pid) => ({ role: roleOf(pid), pid }))
      .concat([{ role: "launcher", pid: launcher!.pid! }]);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    redis,
    modelPid: modelChild.process.pid!,
    processes,
    setModel: (settings) => setBenchModel(modelUrl, settings),
    takeLogLines() {
      const lines = logLines;
      logLines = 0;
      return lines;
    },
    probeWindow: (next = { stampAges: true }) => {
      if (next.stampAges) rmSync(stampPauseFile, { force: true });
      else writeFileSync(stampPauseFile, "");
      return endProbeWindow(
        probeDir,
        processes().filter((p) => p.role === "server" || p.role === "worker"),
      );
    },
    async stop() {
      redis.disconnect();
      // Ctrl-C, as a user stops it: the launcher stops its children in reverse order.
      const pids = processes().map((p) => p.pid);
      launcher!.kill("SIGINT");
      const deadline = Date.now() + 30_000;
      while (launcher!.exitCode === null && launcher!.signalCode === null && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // stopped
        }
      }
      forget();
      logFile.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU (ms) of each role, summed over its processes; processes that exited meanwhile are not counted. */
export function cpuByRole(processes: Array<{ role: string; pid: number }>): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const { role, pid } of processes) {
    const { cpuMs } = processUsage(pid);
    if (Number.isFinite(cpuMs)) byRole.set(role, (byRole.get(role) ?? 0) + cpuMs);
  }
  return byRole;
}
