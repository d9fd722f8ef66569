/**
 * The database lane (test/database): PostgreSQL and Redis only — no server, no workers, no model
 * process — migrated once per mocha process. Suites call commands, queries and job handlers
 * directly with `lane.deps` / `lane.workerDeps()`, each in organisations of its own built by the
 * factories (`lane.build`), which the suite drops when it ends. The demo organisation is not
 * seeded here: a suite that needs it belongs to the stack lane.
 */
import type { Redis } from "ioredis";
import { pino } from "pino";
import type { CommandDeps } from "../../commands/deps";
import { createDb, type Db } from "../../db/knex";
import { migrateLatest } from "../../db/migrator";
import { ReadRouter } from "../../db/read-replica";
import { type Config, parseConfig, requireSetting } from "../../lib/config";
import { createRedis, redisTargetOf } from "../../queues/connection";
import { TurnEventLog } from "../../queues/events/turn-stream";
import { UserEventPublisher } from "../../queues/events/user-events";
import { queueLayoutOf } from "../../queues/layout";
import { JobProducer } from "../../queues/producer";
import type { WorkerDeps } from "../../workers/deps";
import type { LlmClient } from "../../workers/llm/client";
import { searchCaches } from "../../workers/search-caches";
import { type Factories, factories } from "./factories";
import { infrastructureOnce } from "./infrastructure-once";
import { refuseOutsideLane } from "./lanes";

export interface DatabaseLane {
  config: Config;
  db: Db;
  redis: Redis;
  /**
   * What commands take, on the lane's engines: a real producer (jobs wait in Redis, as no worker
   * takes them), a real turn event log, and the config (commands that read a setting take it).
   */
  deps: CommandDeps & { config: Config };
  /** What a job handler takes, for calling its perform()/processor directly; no model unless `llm` is given (a fake). */
  workerDeps(overrides?: Partial<WorkerDeps>): WorkerDeps;
}

interface SharedDatabase {
  starting?: Promise<DatabaseLane>;
  running?: DatabaseLane;
}
const shared: SharedDatabase = ((globalThis as { __skillnetTestDatabase?: SharedDatabase }).__skillnetTestDatabase ??= {});

/** A model client a handler under test has no business calling: any use throws. */
const noModel = new Proxy({} as LlmClient, {
  get(_, key) {
    if (key === "then") return undefined;
    throw new Error(`llm.${String(key)} is not available in the database lane: pass a fake llm to workerDeps(), or test through the stack`);
  },
});

export function useDatabase(): Promise<DatabaseLane> {
  const refusal = refuseOutsideLane("the database");
  if (refusal) return Promise.reject(refusal);
  shared.starting ??= (async () => {
    await infrastructureOnce();
    const config = parseConfig(process.env);
    const url = requireSetting(config.database, "DATABASE_URL");
    const log = pino({ level: "silent" });
    const db = createDb({ url, poolMax: 8, statementTimeoutMs: config.database.DATABASE_STATEMENT_TIMEOUT_MS });
    await migrateLatest(db);
    const redis = createRedis(redisTargetOf(config), "worker", log);
    const producer = new JobProducer(redis, log, queueLayoutOf(config));
    const events = new TurnEventLog(redis, { ttlSeconds: config.redis.EVENT_STREAM_TTL_SECONDS, maxEvents: config.redis.EVENT_STREAM_MAX_EVENTS });
    const deps: DatabaseLane["deps"] = { config, log, db, redis, producer, events };
    shared.running = {
      config,
      db,
      redis,
      deps,
      workerDeps: (overrides = {}) => ({
        ...deps,
        config,
        reads: new ReadRouter({ primary: db, maxLagMs: 0 }),
        userEvents: new UserEventPublisher(redis),
        llm: noModel,
        searchCaches: searchCaches(),
        ...overrides,
      }),
    };
    return shared.running;
  })();
  return shared.starting;
}

/** Closes the lane's connections (the root hooks then stop the infrastructure). */
export async function stopDatabase(): Promise<void> {
  const running = shared.running;
  shared.running = undefined;
  shared.starting = undefined;
  if (!running) return;
  await running.deps.producer.close().catch(() => undefined);
  await running.redis.quit().catch(() => undefined);
  await running.db.destroy().catch(() => undefined);
}

export interface DatabaseSuite extends DatabaseLane {
  /** Factories on the lane's database; what they build is dropped after the suite (test/support/factories). */
  build: Factories;
}

/**
 * The database lane for one suite: call it first thing inside `describe(..., function () { ... })`.
 * It starts (or reuses) the lane in `before`, and drops the organisations the suite built after it.
 */
export function databaseSuite(suite: Mocha.Suite, { timeoutMs = 30_000 } = {}): DatabaseSuite {
  let started: DatabaseLane | undefined;
  const orgIds: string[] = [];
  let built: Factories | undefined;
  suite.timeout(timeoutMs);
  suite.beforeAll(async function () {
    this.timeout(120_000);
    started = await useDatabase();
    built = factories(started.db, orgIds);
  });
  suite.afterAll(async () => {
    if (started) await built?.dropAll();
  });
  return new Proxy({} as DatabaseSuite, {
    get(_, key) {
      if (!started || !built) throw new Error("the database lane is used before the suite's before() hook started it");
      if (key === "build") return built;
      return started[key as keyof DatabaseLane];
    },
  });
}
