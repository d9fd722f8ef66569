/**
 * The one-command launcher (`npm start`). Every part missing from the environment is started
 * here on embedded defaults — a PostgreSQL cluster of its own with pgvector (or PGlite, see
 * EMBEDDED_POSTGRES and embedded/database-choice.ts) for DATABASE_URL, a local redis-server for
 * REDIS_URL, the offline model server for LLM_BASE_URL — then the database is migrated and
 * seeded, and the server and workers start as child processes. Ctrl-C stops them all, in
 * reverse order; Postgres and Redis run in their own process groups so a terminal's Ctrl-C
 * does not stop them under workers that are still finishing jobs. Data lives in DATA_DIR (default .data/), so a restart keeps it.
 *
 * A server, worker, model or PostgreSQL child that crashes is restarted with back-off (supervisor.ts).
 * Every child stops itself when the launcher dies, even by SIGKILL (exit-with-parent,
 * watchdog.ts), and their pids are kept under DATA_DIR/run so the next launcher stops any
 * that still outlived it (pidfiles.ts) before it takes the ports.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeEmbeddedConnection } from "../lib/embedded-connection";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Config, ConfigError, parseConfig } from "../lib/config";
import { type LauncherConfig, MAX_FAST_CRASHES, parseLauncherConfig } from "./settings";
import { componentLogger } from "../lib/logger";
import { chooseBindAddress, exposureBannerLine } from "./bind-address";
import { isPortInUse, spawnUntilReady, type ManagedChild } from "./embedded/child-process";
import { chooseEmbeddedDatabase, pgliteDataDir, type EmbeddedPostgresMode } from "./embedded/database-choice";
import { recordPid, stopStaleProcesses } from "./embedded/pidfiles";
import { prepareOutsideClusterDir } from "./embedded/cluster-home";
import { initCluster, isCluster, runsAsRoot, serverUserCanReach, startCluster } from "./embedded/postgres-cluster";
import { startEmbeddedRedis } from "./embedded/redis";
import { Supervisor } from "./embedded/supervisor";
import { DEMO_USERS } from "../db/seeds/demo-people";
import { prepareDatabase } from "../ops/cli/prepare-database";

const children: Array<Pick<ManagedChild, "name" | "stop">> = [];
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const EXIT_WITH_PARENT = fileURLToPath(new URL("./embedded/exit-with-parent.ts", import.meta.url));
/** Starts tracing before the program loads when OTEL_EXPORTER_OTLP_ENDPOINT is set; else does nothing (lib/telemetry). */
const TELEMETRY_PRELOAD = fileURLToPath(new URL("../lib/telemetry/register.ts", import.meta.url));
/** A Node child under tsx that stops itself when the launcher dies. */
const tsx = (script: string): [string, string[]] => [
  process.execPath,
  ["--import", "tsx", "--import", EXIT_WITH_PARENT, "--import", TELEMETRY_PRELOAD, script],
];

/** The product's settings and the launcher's own, with every bad variable of both named at once. */
function parseBoth(env: NodeJS.ProcessEnv): [Config, LauncherConfig] {
  const problems: string[] = [];
  const attempt = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const base = attempt(() => parseConfig(env));
  const own = attempt(() => parseLauncherConfig(env));
  if (!base || !own) throw new ConfigError(problems);
  return [base, own];
}

async function main(): Promise<void> {
  // A .env beside package.json is read like docker compose would; real env vars win.
  if (existsSync(".env")) process.loadEnvFile(".env");
  const [base, own] = parseBoth(process.env);
  const dataDir = resolve(own.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  const embedded: string[] = [];
  const EMBEDDED_PORTS = { postgres: own.EMBEDDED_POSTGRES_PORT, redis: own.EMBEDDED_REDIS_PORT, llm: own.EMBEDDED_LLM_PORT };
  const record = (name: string, pid: number | undefined, marker: string): void => {
    if (pid) recordPid(dataDir, name, { pid, marker });
  };
  const launcher: LauncherSettings = { dataDir, maxFastCrashes: MAX_FAST_CRASHES };
  await stopStaleProcesses(dataDir, say);
  mkdirSync(join(dataDir, "run"), { recursive: true });

  if (!base.database.DATABASE_URL) {
    await refuseBusyPort(EMBEDDED_PORTS.postgres, "the embedded Postgres", "DATABASE_URL");
    const database = await startEmbeddedDatabase(own.EMBEDDED_POSTGRES, launcher, EMBEDDED_PORTS.postgres, env);
    env.DATABASE_URL = database.url;
    embedded.push(database.label);
  }
  // Behind Sentinel the sentinels name the Redis, on a cluster its nodes do; REDIS_URL then only carries credentials.
  if (!base.redis.REDIS_URL && !base.redis.REDIS_SENTINELS && !base.redis.REDIS_CLUSTER_NODES) {
    await refuseBusyPort(EMBEDDED_PORTS.redis, "the embedded Redis", "REDIS_URL");
    say(`› starting redis-server (maxmemory ${base.redis.REDIS_MAXMEMORY}, noeviction, append-only)…`);
    const redis = await startEmbeddedRedis({
      port: EMBEDDED_PORTS.redis,
      dataDir: join(dataDir, "redis"),
      persistent: true,
      maxmemory: base.redis.REDIS_MAXMEMORY,
      log: say,
      detached: true,
      exitWithParent: true,
      pidFile: join(dataDir, "run", "redis-server.pid"),
    });
    children.push(redis.child);
    record("redis-watchdog", redis.child.process.pid, "watchdog.ts");
    watchInfrastructure(redis.child);
    env.REDIS_URL = redis.url;
    embedded.push("Redis");
  }
  if (!base.llm.LLM_BASE_URL) {
    await refuseBusyPort(EMBEDDED_PORTS.llm, "the offline model server", "LLM_BASE_URL");
    say("› starting the offline model server (deterministic, no real LLM)…");
    const [command, args] = tsx("offline-model/main.ts");
    const llmEnv = { ...env, EMBEDDED_LLM_PORT: String(EMBEDDED_PORTS.llm), HOST: "127.0.0.1" };
    const llm = await supervise(launcher, "offline-llm", "offline-model/main.ts", () =>
      spawnUntilReady(command, args, { name: "offline-llm", readyPattern: /^READY (\S+)/, env: llmEnv }),
    );
    env.LLM_BASE_URL = llm.match[1]!;
    env.LLM_MODEL ??= "offline-extractive";
    embedded.push("offline model");
  }
  env.JWT_SECRET ??= persistentSecret(dataDir, "jwt-secret");
  env.SECRETS_KEY ??= persistentSecret(dataDir, "secrets-key");
  if (!base.database.DATABASE_URL && process.env.DEV_LOGIN_ENABLED === undefined && base.process.NODE_ENV !== "production") env.DEV_LOGIN_ENABLED = "true";
  // A trial on one machine may sign in at an identity provider on that machine. Anyone who reaches it can already
  // dev-login as the operator, so loopback is no secret to keep from its admins; a deployment sets it itself.
  if (env.DEV_LOGIN_ENABLED === "true" && process.env.OUTBOUND_ALLOWED_CIDRS === undefined) env.OUTBOUND_ALLOWED_CIDRS = "127.0.0.0/8,::1/128";
  const exposure = chooseBindAddress(env, (host) =>
    componentLogger("start").warn(
      { host },
      "dev-login is enabled and HOST exposes it beyond this machine: anyone who can reach the port can sign in as any user",
    ),
  );
  // The demo organisation operates the embedded platform, so its admin can open Bull Board.
  if (!base.database.DATABASE_URL && !base.server.OPS_ORG) env.OPS_ORG = "acme";

  const config = parseConfig(env);
  // So `npm run org -- …` in another terminal reaches this product without exporting anything.
  if (!base.database.DATABASE_URL) writeEmbeddedConnection(dataDir, env);
  say("› migrating and seeding the demo organisation…");
  await prepareDatabase(config);

  say("› starting workers and server…");
  const [workerCmd, workerArgs] = tsx("workers/main.ts");
  await supervise(launcher, "worker", "workers/main.ts", () =>
    spawnUntilReady(workerCmd, workerArgs, { name: "worker", readyPattern: /^READY workers/, env, onOutput: (line) => say(line) }),
  );
  const [serverCmd, serverArgs] = tsx("server/main.ts");
  await supervise(launcher, "server", "server/main.ts", () =>
    spawnUntilReady(serverCmd, serverArgs, { name: "server", readyPattern: /^READY server/, env, onOutput: (line) => say(line) }),
  );
  printBanner(config.server.PORT, embedded, config.auth.DEV_LOGIN_ENABLED, exposureBannerLine(exposure, env.HOST, config.server.PORT));
}

function printBanner(port: number, embedded: string[], devLogin: boolean, exposureLine: string | undefined): void {
  const api = `http://localhost:${port}`;
  say("");
  say("skillnet-chat is running.");
  say(`  Tutor (web)    ${api}/`);
  say(`  Admin console  ${api}/admin`);
  say(`  API            ${api}/api/v1   (health: ${api}/healthz, readiness: ${api}/readyz)`);
  say(`  Socket.IO      ${api}/socket.io`);
  say(`  Bull Board     ${api}/admin/queues   (sign in: ${api}/admin/login with an admin token)`);
  say(`  Embedded parts ${embedded.length ? embedded.join(", ") : "none (all from the environment)"}`);
  if (embedded.includes("offline model")) {
    say("  Model          the bundled OFFLINE model server: extractive answers from company material, hashed");
    say("                 embeddings. Not a real LLM. Set LLM_BASE_URL/LLM_API_KEY/LLM_MODEL to use one (see README).");
  }
  if (devLogin) {
    say(`  Demo users     employee@example.com (employee), admin@example.com (admin), and ${DEMO_USERS.length - 2} more employees`);
    say(`  Get a token    curl -s -X POST ${api}/api/v1/auth/dev-login -H 'content-type: application/json' -d '{"email":"employee@example.com"}'`);
  }
  if (exposureLine) say(exposureLine);
  say("  Stop           Ctrl-C");
  say("");
}

interface LauncherSettings {
  dataDir: string;
  maxFastCrashes: number;
}

/**
 * Starts a child that is restarted with back-off when it crashes (giving up, and stopping
 * everything, after MAX_FAST_CRASHES (launcher/settings.ts) quick crashes in a row); resolves with the
 * first start's ready match.
 */
async function supervise<Match = RegExpMatchArray>(
  launcher: LauncherSettings,
  name: string,
  script: string,
  spawnReady: () => Promise<{ child: ManagedChild; match: Match }>,
): Promise<{ match: Match }> {
  let first: Match | undefined;
  const supervisor = new Supervisor({
    name,
    start: async () => {
      const { child, match } = await spawnReady();
      first ??= match;
      return child;
    },
    maxFastCrashes: launcher.maxFastCrashes,
    log: say,
    onStarted: (child) => recordPid(launcher.dataDir, name, { pid: child.process.pid!, marker: script }),
    onGiveUp: (reason) => {
      say(`✗ ${reason}`);
      void stop(1);
    },
    shuttingDown: () => stopping,
  });
  await supervisor.start();
  children.push(supervisor);
  return { match: first! };
}

/**
 * The embedded database EMBEDDED_POSTGRES asks for (database-choice.ts): a PostgreSQL cluster of
 * our own under DATA_DIR/postgres (or where DATA_DIR/postgres-location says, see
 * cluster-home.ts), restarted like the server and workers when it dies, or PGlite.
 * In `auto`, a cluster that cannot be created (say the postgres OS user cannot reach DATA_DIR)
 * falls back to PGlite, with the reason.
 */
async function startEmbeddedDatabase(
  mode: EmbeddedPostgresMode,
  launcher: LauncherSettings,
  port: number,
  env: Record<string, string>,
): Promise<{ url: string; label: string }> {
  let choice = chooseEmbeddedDatabase(mode, launcher.dataDir);
  const password = persistentSecret(launcher.dataDir, "postgres-password");
  if (choice.engine === "server" && !isCluster(choice.dataDir)) {
    try {
      choice = { ...choice, dataDir: createCluster(choice.bindir, choice.dataDir, launcher.dataDir, password) };
    } catch (error) {
      if (mode !== "auto") throw error;
      choice = { engine: "pglite", dataDir: pgliteDataDir(launcher.dataDir), why: `the PostgreSQL cluster could not be created: ${(error as Error).message}` };
    }
  }
  if (choice.engine === "pglite") {
    say(`› starting embedded Postgres: PGlite + pgvector, because ${choice.why}…`);
    return { url: await startPglite(launcher, choice.dataDir, port, env), label: "Postgres (PGlite)" };
  }
  const { bindir, dataDir } = choice;
  say(`› starting embedded Postgres: PostgreSQL server from ${bindir}, data in ${dataDir}, because ${choice.why}…`);
  const { match: url } = await supervise(launcher, "postgres", dataDir, async () => {
    const cluster = await startCluster({ bindir, dataDir, port, password, detached: true });
    // The watchdog's pid is recorded by supervise; the postmaster's too, in case it outlives it.
    const postmaster = cluster.postmasterPid();
    if (postmaster) recordPid(launcher.dataDir, "postmaster", { pid: postmaster, marker: dataDir });
    return { child: cluster.child, match: cluster.url };
  });
  return { url, label: "Postgres (PostgreSQL server)" };
}

/**
 * `initdb` for a new cluster; returns the directory it is in. As root, when the postgres OS user
 * cannot reach DATA_DIR (a checkout under a 0700 home), the cluster goes outside the checkout
 * (cluster-home.ts) instead of loosening the home's permissions, and DATA_DIR records where.
 */
function createCluster(bindir: string, clusterDir: string, dataDir: string, password: string): string {
  if (!runsAsRoot() || serverUserCanReach(dataDir)) {
    say(`› creating a PostgreSQL cluster in ${clusterDir}…`);
    initCluster({ bindir, dataDir: clusterDir, password });
    return clusterDir;
  }
  const outside = prepareOutsideClusterDir(dataDir);
  say(
    `› the postgres OS user cannot reach ${dataDir} (a directory above it is private, as /root is), so the PostgreSQL cluster ` +
      `goes in ${outside.dir}, recorded in ${join(dataDir, "postgres-location")}; deleting ${dataDir} still starts from zero` +
      `${outside.replaced ? " (the cluster left there by an earlier, deleted data directory of this path was removed)" : ""}…`,
  );
  initCluster({ bindir, dataDir: outside.dir, password });
  outside.record();
  return outside.dir;
}

/** PGlite with pgvector over the wire protocol, in its own process. */
async function startPglite(launcher: LauncherSettings, dataDir: string, port: number, env: Record<string, string>): Promise<string> {
  // Its own --exit-with-parent closes the database cleanly when the launcher dies.
  const { child, match } = await spawnUntilReady(
    process.execPath,
    ["--import", "tsx", "launcher/embedded/postgres-server.ts", "--data-dir", dataDir, "--port", String(port), "--exit-with-parent"],
    { name: "postgres", readyPattern: /^READY (\S+)/, timeoutMs: 120_000, env, detached: true },
  );
  children.push(child);
  recordPid(launcher.dataDir, "postgres", { pid: child.process.pid!, marker: "postgres-server.ts" });
  watchInfrastructure(child);
  return match[1]!;
}

/** Postgres and Redis hold the data: if one of them dies, the launcher stops rather than run on without it. */
function watchInfrastructure(child: ManagedChild): void {
  child.process.once("exit", (code, signal) => {
    if (stopping) return;
    say(`✗ ${child.name} exited (code ${code}, signal ${signal}); stopping everything.`);
    void stop(1);
  });
}

/** A secret for embedded mode (JWT key, database password), generated once and kept so it survives restarts. */
function persistentSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

async function refuseBusyPort(port: number, what: string, variable: string): Promise<void> {
  if (await isPortInUse(port)) {
    throw new Error(`Port ${port}, used by ${what}, is busy (another skillnet-chat running?). Stop it, or set ${variable} to use an existing service.`);
  }
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say("› stopping…");
  for (const child of [...children].reverse()) await child.stop(15_000).catch(() => undefined);
  process.exit(code);
}

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
main().catch(async (error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `Start-up failed: ${(error as Error).message}`}\n`);
  await stop(1);
});
