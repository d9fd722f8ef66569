/**
 * `npm start`'s launcher (launcher/start.ts) as a test starts it: its own DATA_DIR and free ports,
 * embedded defaults (every setting another suite exported into process.env removed first), in a
 * process group of its own, so a test can send SIGINT to the group the way a terminal's Ctrl-C does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "../../launcher/embedded/child-process";
import { expect } from "chai";
import { api, login, waitFor } from "../harness/client";

/** Settings the in-process test stack exports; the launcher must start its own parts instead. */
const STACK_SETTINGS = [
  "DATABASE_URL",
  "REDIS_URL",
  "LLM_BASE_URL",
  "LLM_API_KEY",
  "LLM_MODEL",
  "EMBEDDING_BASE_URL",
  "NODE_ENV",
  "JWT_SECRET",
  "DEV_LOGIN_ENABLED",
  "OPS_ORG",
  "HOST",
];

export interface LauncherSetup {
  dataDir: string;
  baseUrl: string;
  env: Record<string, string | undefined>;
  ports: { http: number; postgres: number; redis: number; llm: number };
}

export interface Launcher {
  process: ChildProcess;
  output: () => string;
}

/** A fresh DATA_DIR and four free ports, with the environment the launcher gets. */
export async function launcherSetup(extraEnv: Record<string, string> = {}): Promise<LauncherSetup> {
  const dataDir = mkdtempSync(join(tmpdir(), "skillnet-launcher-"));
  // As root the embedded PostgreSQL cluster belongs to the postgres OS user, who must reach it
  // (a fresh machine's .data/ under the checkout is reachable; mkdtemp's 0700 is not).
  chmodSync(dataDir, 0o711);
  const [postgres, redis, llm, http] = await Promise.all([findFreePort(), findFreePort(), findFreePort(), findFreePort()]);
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(postgres),
    EMBEDDED_REDIS_PORT: String(redis),
    EMBEDDED_LLM_PORT: String(llm),
    PORT: String(http),
    LOG_LEVEL: "warn",
  };
  for (const name of STACK_SETTINGS) delete env[name];
  // After the removal: a suite may choose one of those settings itself (DEV_LOGIN_ENABLED=false).
  Object.assign(env, extraEnv);
  return { dataDir, baseUrl: `http://127.0.0.1:${http}`, env, ports: { http, postgres, redis, llm } };
}

/**
 * Starts the launcher. `script` is what runs it: `launcher/start.ts` under tsx (what start.sh
 * execs), or `scripts/start.sh` itself (ensure-deps and the web build first, as `npm start`).
 */
export function startLauncher(setup: LauncherSetup, options: { script?: "launcher/start.ts" | "scripts/start.sh"; detached?: boolean } = {}): Launcher {
  const script = options.script ?? "launcher/start.ts";
  const [command, args] = script.endsWith(".sh") ? ["bash", [script]] : [process.execPath, ["--import", "tsx", script]];
  const child = spawn(command, args, { env: setup.env, stdio: ["ignore", "pipe", "pipe"], detached: options.detached ?? false });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return { process: child, output: () => output };
}

export const hasExited = (launcher: Launcher): boolean => launcher.process.exitCode !== null || launcher.process.signalCode !== null;

/** Waits for the banner the README shows ("skillnet-chat is running."): every part is up by then. */
export async function launcherRunning(launcher: Launcher, timeoutMs = 180_000): Promise<void> {
  await waitFor(
    () => {
      if (hasExited(launcher)) throw new Error(`launcher exited (${launcher.process.exitCode}):\n${launcher.output()}`);
      return launcher.output().includes("skillnet-chat is running.");
    },
    timeoutMs,
    "the launcher's banner",
  );
}

export async function healthy(launcher: Launcher, baseUrl: string): Promise<void> {
  await waitFor(
    async () => {
      if (launcher.process.exitCode !== null) throw new Error(`launcher exited (${launcher.process.exitCode}):\n${launcher.output()}`);
      return (await fetch(`${baseUrl}/healthz`).catch(() => null))?.ok;
    },
    180_000,
    "the launcher's server to answer /healthz",
  );
}

/** Pids the launcher recorded under DATA_DIR/run, by name. */
export function recordedPids(dataDir: string): Record<string, number> {
  const pids: Record<string, number> = {};
  let files: string[] = [];
  try {
    files = readdirSync(join(dataDir, "run"));
  } catch {
    return pids;
  }
  for (const file of files.filter((f) => f.endsWith(".pid"))) {
    const text = readFileSync(join(dataDir, "run", file), "utf8");
    pids[file.slice(0, -4)] = /^\s*\d+\s*$/.test(text) ? Number(text) : (JSON.parse(text) as { pid: number }).pid;
  }
  return pids;
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Every process that belongs to the launcher of `dataDir`: its environment carries that DATA_DIR
 * (children inherit it) or its command line names the directory (redis-server, Postgres). Read
 * from /proc, so it finds what `ps` would, recorded pid or not.
 */
export function processesOf(dataDir: string): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let command = "";
    let environment = "";
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      environment = readFileSync(`/proc/${entry}/environ`, "utf8");
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (command.includes(dataDir) || environment.split("\0").includes(`DATA_DIR=${dataDir}`)) found.push({ pid: Number(entry), command });
  }
  return found;
}

/** The demo employee asks the tutor through the launched product, and its answer gets stored. */
export async function answersATurn(baseUrl: string): Promise<void> {
  const { token } = await login(baseUrl, "employee@example.com");
  const posted = await api(baseUrl, "POST", "/api/v1/chat", { token, body: { message: "How many days do I have to return an item?" } });
  expect(posted.status).to.equal(202);
  await waitFor(
    async () => {
      const messages = await api(baseUrl, "GET", `/api/v1/chat/sessions/${posted.body.session_id}/messages`, { token });
      return messages.body.messages?.some((m: { role: string }) => m.role === "assistant");
    },
    60_000,
    "the answer to be stored",
  );
}
