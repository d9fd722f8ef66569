/**
 * A PostgreSQL cluster of our own on the machine's installed server (with pgvector, which
 * scripts/ensure-postgres.sh installs): `initdb` into a data directory once, then `postgres`
 * on its own port, listening on 127.0.0.1 only, no Unix socket. `npm start` keeps its cluster
 * under DATA_DIR/postgres, or outside the checkout when the server's user cannot reach it
 * (cluster-home.ts); the test harness makes a throwaway one with durability off.
 *
 * PostgreSQL refuses to run as root, so when we are root the server runs as the `postgres` OS
 * user the distribution's package creates (`setpriv`, which execs, so the pid is the
 * postmaster's) and the data directory belongs to that user.
 *
 * The postmaster runs under watchdog.ts, which stops it (fast shutdown) when our process dies.
 */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnUntilReady, type ManagedChild } from "./child-process";

const ENSURE_SCRIPT = fileURLToPath(new URL("../../scripts/ensure-postgres.sh", import.meta.url));
const WATCHDOG = fileURLToPath(new URL("./watchdog.ts", import.meta.url));

export type ServerLookup = { found: true; bindir: string } | { found: false; reason: string };

let lookup: ServerLookup | undefined;

/** The installed server with pgvector, or why there is none. Only looks; never installs. */
export function findPostgresServer(): ServerLookup {
  if (lookup) return lookup;
  const result = spawnSync("bash", [ENSURE_SCRIPT, "--check"], { encoding: "utf8" });
  const bindir = result.stdout.match(/^PG_BINDIR=(.+)$/m)?.[1];
  lookup =
    result.status === 0 && bindir
      ? { found: true, bindir }
      : { found: false, reason: (result.stderr || result.stdout).trim().split("\n")[0] ?? "scripts/ensure-postgres.sh failed" };
  return lookup;
}

/** Who runs the server: ourselves, or the `postgres` OS user when we are root. */
interface ServerUser {
  uid: number;
  gid: number;
  /** Prefix that runs a command as that user (empty when it is us). */
  prefix: string[];
}

function serverUser(): ServerUser {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? 0, prefix: [] };
  const id = (flag: string): number => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const pgUid = id("-u");
  if (!Number.isInteger(pgUid) || pgUid <= 0) {
    throw new Error("Running as root, but there is no `postgres` OS user to run PostgreSQL as (PostgreSQL refuses to run as root).");
  }
  return { uid: pgUid, gid: id("-g"), prefix: ["setpriv", `--reuid=${pgUid}`, `--regid=${id("-g")}`, "--init-groups", "--"] };
}

export interface ClusterOptions {
  bindir: string;
  dataDir: string;
  port: number;
  /** Password of the `postgres` role for TCP connections; unset means trust (throwaway test clusters). */
  password?: string;
  /** Extra server settings (`-c name=value`), e.g. durability off for tests. */
  settings?: Record<string, string | number>;
  /** Own process group, so a terminal's Ctrl-C reaches only the launcher, which stops it last. */
  detached?: boolean;
  timeoutMs?: number;
}

export interface RunningCluster {
  url: string;
  child: ManagedChild;
  /** The postmaster's pid (the watchdog's child), from postmaster.pid. */
  postmasterPid(): number | undefined;
}

/**
 * Whether the user that runs the server can reach (search) `dir` — every directory above it
 * included. As root that is the `postgres` OS user, who cannot enter a private home such as
 * Debian's /root (0700).
 */
export function serverUserCanReach(dir: string): boolean {
  return run(serverUser(), "test", ["-x", dir], { stdio: "ignore" }).status === 0;
}

/** True when we run as root (the server then runs as the `postgres` OS user). */
export const runsAsRoot = (): boolean => (process.getuid?.() ?? 0) === 0;

/** True when the directory holds an initialised cluster. */
export const isCluster = (dataDir: string): boolean => existsSync(join(dataDir, "PG_VERSION"));

/** `initdb` unless the directory already holds a cluster. */
export function initCluster({ bindir, dataDir, password }: Pick<ClusterOptions, "bindir" | "dataDir" | "password">): void {
  if (isCluster(dataDir)) return;
  const user = serverUser();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user.prefix.length) chownSync(dataDir, user.uid, user.gid);
  const reachable = run(user, "test", ["-w", dataDir], { stdio: "ignore" }).status === 0;
  if (!reachable) {
    throw new Error(
      `The ${user.prefix.length ? "postgres OS user" : "current user"} cannot write ${dataDir}: every directory above it must be ` +
        "searchable (chmod o+x) by that user. Choose another DATA_DIR, or EMBEDDED_POSTGRES=pglite.",
    );
  }
  const args = ["-D", dataDir, "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-instructions", "--auth-local=trust"];
  if (password) {
    const pwfile = join(dirname(dataDir), ".postgres-initdb-password");
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user.prefix.length) chownSync(pwfile, user.uid, user.gid);
    args.push("--auth-host=scram-sha-256", `--pwfile=${pwfile}`);
    try {
      initdb(user, bindir, args);
    } finally {
      spawnSync("rm", ["-f", pwfile]);
    }
  } else {
    args.push("--auth-host=trust");
    initdb(user, bindir, args);
  }
}

/**
 * A streaming replica's data directory: `pg_basebackup -R` from a running primary (as the user
 * that runs the server), which also writes `standby.signal` and the `primary_conninfo` to follow.
 */
export function baseBackup({ bindir, dataDir, primaryPort }: { bindir: string; dataDir: string; primaryPort: number }): void {
  const user = serverUser();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user.prefix.length) chownSync(dataDir, user.uid, user.gid);
  const args = ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", dataDir, "-R", "-X", "stream", "-c", "fast"];
  const result = run(user, join(bindir, "pg_basebackup"), args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`pg_basebackup failed: ${String(result.stderr ?? "").trim() || `exit ${result.status}`}`);
}

function initdb(user: ServerUser, bindir: string, args: string[]): void {
  const result = run(user, join(bindir, "initdb"), args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`initdb failed: ${String(result.stderr ?? "").trim() || `exit ${result.status}`}`);
}

function run(user: ServerUser, command: string, args: string[], options: SpawnSyncOptions) {
  const [head, ...rest] = [...user.prefix, command, ...args];
  return spawnSync(head!, rest, options);
}

/** Starts the postmaster on an initialised cluster; resolves once it accepts connections. */
export async function startCluster({
  bindir,
  dataDir,
  port,
  password,
  settings = {},
  detached = false,
  timeoutMs = 60_000,
}: ClusterOptions): Promise<RunningCluster> {
  const user = serverUser();
  const options = Object.entries({ listen_addresses: "127.0.0.1", unix_socket_directories: "", ...settings }).flatMap(([name, value]) => [
    "-c",
    `${name}=${value}`,
  ]);
  const server = [...user.prefix, join(bindir, "postgres"), "-D", dataDir, "-p", String(port), ...options];
  // Fast shutdown on SIGTERM: a smart one would wait for every pooled client to disconnect.
  const { child } = await spawnUntilReady(process.execPath, ["--import", "tsx", WATCHDOG, "--stop-signal=SIGINT", "--", ...server], {
    name: "postgres",
    // A standby says "ready to accept read-only connections".
    readyPattern: /database system is ready to accept (read-only )?connections/,
    timeoutMs,
    detached,
  });
  const credentials = password ? `postgres:${encodeURIComponent(password)}` : "postgres";
  return {
    url: `postgres://${credentials}@127.0.0.1:${port}/postgres`,
    child,
    postmasterPid: () => {
      try {
        return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      } catch {
        return undefined;
      }
    },
  };
}
