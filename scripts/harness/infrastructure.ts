/**
 * The infrastructure the product needs, started as child processes for one run: a real
 * redis-server, PGlite with pgvector over the wire protocol (its own process) and the scripted
 * model server. The test stack (test/support/stack.ts) and the eval harness build on it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resetConfig } from "../../lib/config";
import { resetLogger } from "../../lib/logger";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../embedded/child-process";
import { startEmbeddedRedis } from "../embedded/redis";
import { startScriptedLlm, type ScriptedLlm } from "./scripted-llm";

const children: ManagedChild[] = [];
let tempDir: string | undefined;

/** Infrastructure only (Redis, Postgres, model server), for tests that start their own processes. */
export async function startInfrastructure(): Promise<{ env: Record<string, string>; llm: ScriptedLlm }> {
  tempDir = mkdtempSync(join(tmpdir(), "skillnet-test-"));
  const noop = (): void => undefined;
  const [redis, postgres, llm] = await Promise.all([
    findFreePort().then((port) => startEmbeddedRedis({ port, dataDir: join(tempDir!, "redis"), persistent: false, log: noop })),
    findFreePort().then((port) =>
      spawnUntilReady(process.execPath, ["--import", "tsx", "scripts/embedded/postgres-server.ts", "--port", String(port), "--exit-with-parent"], {
        name: "pglite",
        readyPattern: /^READY (\S+)/,
        timeoutMs: 60_000,
      }),
    ),
    startScriptedLlm(),
  ]);
  children.push(redis.child, postgres.child);
  const env = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    REDIS_URL: redis.url,
    DATABASE_URL: postgres.match[1]!,
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: "sk-test-secret-key-0123456789",
    LLM_MODEL: "scripted-model",
    EMBEDDING_DIMENSIONS: "384",
    JWT_SECRET: randomBytes(24).toString("hex"),
    DEV_LOGIN_ENABLED: "true",
    // Suites sign in many users from 127.0.0.1; test/server/auth-hardening.test.ts covers the limit.
    RATE_LIMIT_DEV_LOGIN_PER_MINUTE: "100000",
    // Every suite shares the demo organisation; test/server/limits.test.ts covers these limits.
    RATE_LIMIT_ORG_TUTOR_PER_MINUTE: "100000",
    RATE_LIMIT_ORG_ADMIN_PER_MINUTE: "100000",
    RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: "100000",
    RATE_LIMIT_ORG_REINDEX_PER_MINUTE: "100000",
    RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: "100000",
    OPS_ORG: "acme",
    WORKER_CONCURRENCY: "4",
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
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}
