/**
 * A project-local `redis-server` for embedded mode and tests: its own port and data folder,
 * `noeviction` (BullMQ loses jobs under any eviction policy), optionally a `maxmemory` cap (past
 * it writes fail with OOM errors, which the server answers with 503, instead of Redis growing
 * until the machine swaps), installed from Debian's packages when it is missing and we are
 * allowed to.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { spawnUntilReady, type ManagedChild } from "./child-process";

const CANDIDATES = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];
const WATCHDOG = fileURLToPath(new URL("./watchdog.ts", import.meta.url));

export function findRedisServer(): string | undefined {
  const onPath = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).stdout.trim();
  if (onPath) return onPath;
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

/** Finds `redis-server`, installing Debian's package when possible; throws with instructions otherwise. */
export function ensureRedisServer(log: (message: string) => void): string {
  const found = findRedisServer();
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
  if (isRoot && hasApt) {
    log("redis-server is missing; installing Debian's redis-server package (apt-get)…");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = (): boolean =>
      spawnSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", "redis-server"], { env, stdio: "ignore" }).status === 0;
    if (!install()) {
      execFileSync("apt-get", ["update", "-q"], { env, stdio: "ignore" });
      install();
    }
    const installed = findRedisServer();
    if (installed) return installed;
  }
  throw new Error(
    "redis-server was not found and could not be installed automatically.\n" +
      "Install it (Debian/Ubuntu: `sudo apt-get install redis-server`, macOS: `brew install redis`) " +
      "or point REDIS_URL at an existing Redis 7.0+ server.",
  );
}

export interface EmbeddedRedisOptions {
  /** Own process group, so a terminal's Ctrl-C reaches only the launcher, which stops it last. */
  detached?: boolean;
  port: number;
  dataDir: string;
  /** Append-only file for durability across restarts (on for `npm start`, off for tests). */
  persistent: boolean;
  /** Memory cap such as `512mb`; unset leaves Redis unbounded (tests). */
  maxmemory?: string;
  log: (message: string) => void;
  /**
   * Run it under watchdog.ts, which stops it when our process dies (redis-server has no
   * exit-with-parent flag of its own). `npm start` and the test harness set this: a test run that
   * ends without its teardown (killed, or a harness child that exits early) left a redis-server
   * behind for every such run.
   */
  exitWithParent?: boolean;
  /** Where redis-server writes its own pid (it removes the file when it stops cleanly). */
  pidFile?: string;
  /** More redis-server arguments, e.g. `--replicaof` for a test's replica. */
  extraArgs?: string[];
}

export async function startEmbeddedRedis({
  port,
  dataDir,
  persistent,
  maxmemory,
  log,
  detached = false,
  exitWithParent = false,
  pidFile,
  extraArgs = [],
}: EmbeddedRedisOptions): Promise<{ url: string; child: ManagedChild }> {
  const binary = ensureRedisServer(log);
  mkdirSync(dataDir, { recursive: true });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dataDir,
    "--maxmemory-policy",
    "noeviction",
    ...(maxmemory ? ["--maxmemory", maxmemory] : []),
    "--appendonly",
    persistent ? "yes" : "no",
    "--save",
    "",
    "--daemonize",
    "no",
    "--protected-mode",
    "yes",
    ...(pidFile ? ["--pidfile", pidFile] : []),
    ...extraArgs,
  ];
  const [command, commandArgs] = exitWithParent ? [process.execPath, ["--import", "tsx", WATCHDOG, "--", binary, ...args]] : [binary, args];
  const { child } = await spawnUntilReady(command, commandArgs, {
    name: "redis-server",
    readyPattern: /Ready to accept connections/,
    timeoutMs: 20_000,
    detached,
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}
