/**
 * The whole product, started once for the test run: a real redis-server, PGlite with pgvector
 * over the wire protocol (its own process), the scripted model server, migrations and the demo
 * seed, then the HTTP/Socket.IO server and the BullMQ workers in this process.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, resetConfig, type Config } from "../../lib/config";
import { resetLogger } from "../../lib/logger";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../scripts/embedded/child-process";
import { startEmbeddedRedis } from "../../scripts/embedded/redis";
import { prepareDatabase } from "../../scripts/prepare-database";
import type { DemoOrganisation } from "../../db/seeds/demo-org";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { startScriptedLlm, type ScriptedLlm } from "./scripted-llm";

export interface Stack {
  config: Config;
  env: Record<string, string>;
  llm: ScriptedLlm;
  server: RunningServer;
  workers: RunningWorkers;
  demo: DemoOrganisation;
  baseUrl: string;
}

let starting: Promise<Stack> | undefined;
const children: ManagedChild[] = [];
let tempDir: string | undefined;
let running: Stack | undefined;

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

export function useStack(): Promise<Stack> {
  starting ??= (async () => {
    const { env, llm } = await startInfrastructure();
    const config = parseConfig(process.env);
    const { demo } = await prepareDatabase(config);
    const workers = await startWorkers(config, { llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    const server = await startServer(config, { port: 0, host: "127.0.0.1" });
    running = { config, env, llm, server, workers, demo: demo!, baseUrl: server.url };
    return running;
  })();
  return starting;
}

export async function stopStack(): Promise<void> {
  if (running) {
    await running.server.close().catch(() => undefined);
    await running.workers.close().catch(() => undefined);
    await running.llm.close().catch(() => undefined);
  }
  for (const child of children.reverse()) await child.stop(5_000).catch(() => undefined);
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
}
