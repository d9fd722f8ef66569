/**
 * The whole product, started once for the test run: the infrastructure (test/harness:
 * redis-server, PGlite with pgvector, the scripted model server), migrations and the demo seed,
 * then the HTTP/Socket.IO server and the BullMQ workers in this process.
 */
import { parseConfig, type Config } from "../../lib/config";
import { startInfrastructure } from "../harness/infrastructure";
import type { ScriptedLlm } from "../harness/scripted-llm";
import { prepareDatabase } from "../../ops/cli/prepare-database";
import type { DemoOrganisation } from "../../db/seeds/demo-org";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { searchCaches } from "../../workers/search-caches";
import { JOB_OPTIONS } from "../../queues/job-options";
import { infrastructureOnce, stopInfrastructureOnce } from "./infrastructure-once";
import { refuseOutsideLane } from "./lanes";

/** Infrastructure only (Redis, Postgres, model server), for tests that start their own processes. */
export { startInfrastructure };

export interface Stack {
  config: Config;
  env: Record<string, string>;
  llm: ScriptedLlm;
  server: RunningServer;
  workers: RunningWorkers;
  demo: DemoOrganisation;
  baseUrl: string;
}

/**
 * One stack per test process, kept on `globalThis` rather than in this module: mocha can load this
 * file twice (once through the root hooks, once through the suites; two module instances), and
 * a second stack would also point process.env at a second Redis, Postgres and model server, so
 * workers a suite starts from process.env (test/reliability/helpers.ts startOwnWorkers) would
 * serve another stack's queues than the suite's own server fills.
 */
interface SharedStack {
  starting?: Promise<Stack>;
  running?: Stack;
}
const shared: SharedStack = ((globalThis as { __skillnetTestStack?: SharedStack }).__skillnetTestStack ??= {});

/** How much shorter a failed job's wait before its next attempt is in the stack than in production. */
const TEST_BACKOFF_DIVISOR = 20;
const shortened = new WeakSet<object>();

/**
 * Test-length waits between a failed job's attempts: the same attempts and exponential shape, each
 * delay a twentieth (production's 2 s is 100 ms), so a suite that waits for a job to exhaust its
 * retries (an embedding service that refuses, an erasure that keeps failing) waits ~1.5 s instead
 * of ~30 s. The options are stored with each job when it is queued, so workers in child processes
 * honour them too.
 */
function shortenJobBackoffs(): void {
  for (const options of Object.values(JOB_OPTIONS)) {
    const backoff = options.backoff;
    if (shortened.has(options) || typeof backoff !== "object" || !backoff.delay) continue;
    options.backoff = { ...backoff, delay: Math.max(1, Math.round(backoff.delay / TEST_BACKOFF_DIVISOR)) };
    shortened.add(options);
  }
}

export function useStack(): Promise<Stack> {
  // The unit and database lanes (test/unit, test/database) run without it: a suite there that reaches for it is misfiled.
  const refusal = refuseOutsideLane("the stack");
  if (refusal) return Promise.reject(refusal);
  shared.starting ??= (async () => {
    const { env, llm } = await infrastructureOnce();
    if (!llm) throw new Error("the infrastructure was started without the scripted model (database lane only), so the stack cannot start in this process");
    const config = parseConfig(process.env);
    shortenJobBackoffs();
    const { demo } = await prepareDatabase(config);
    const workers = await startWorkers(config, { llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    const server = await startServer(config, { port: 0, host: "127.0.0.1" });
    shared.running = { config, env, llm, server, workers, demo: demo!, baseUrl: server.url };
    return shared.running;
  })();
  return shared.starting;
}

export async function stopStack(): Promise<void> {
  const running = shared.running;
  if (running) {
    await running.server.close().catch(() => undefined);
    await running.workers.close().catch(() => undefined);
    await running.llm.close().catch(() => undefined);
  }
  await stopInfrastructureOnce();
}

/** A `before` hook that starts (or reuses) the stack, allowing for a cold start, and hands it to the suite. */
export function startStack(assign: (stack: Stack) => void): Mocha.AsyncFunc {
  return async function () {
    this.timeout(120_000);
    assign(await useStack());
  };
}

/**
 * Starts the in-process workers' search memory afresh (org sizes, index states, tail decisions,
 * term frequencies: workers/search-caches.ts), e.g. after a test built or dropped an org's index.
 */
export function forgetSearches(stack: Pick<Stack, "workers">): void {
  stack.workers.deps.searchCaches = searchCaches();
}
