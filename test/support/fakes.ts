/**
 * Small in-memory stand-ins for `CommandDeps` and `WorkerDeps`, for tests of logic that needs
 * no engine: what a command or handler decides, enqueues and announces. Nothing here opens a
 * socket. A test that needs Postgres or Redis (a query, a lock, a script) belongs to the database
 * lane (test/database, test/support/database.ts), one with a job crossing processes to the stack
 * (test/support/suite.ts); touching `db` or `redis` on a fake throws and says so, rather than
 * passing against something that is not the engine.
 */
import { pino } from "pino";
import type { CommandDeps } from "../../commands/deps";
import type { Db } from "../../db/knex";
import type { ReadRouter } from "../../db/read-replica";
import { parseConfig, type Config } from "../../lib/config";
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { UserEventPublisher } from "../../queues/events/user-events";
import type { JobProducer } from "../../queues/producer";
import type { WorkerDeps } from "../../workers/deps";
import type { LlmClient } from "../../workers/llm/client";
import { searchCaches } from "../../workers/search-caches";
import { testEnv } from "./tunables";

/** A member a logic test has no business using: any access throws, naming the real-stack alternative. */
function absent<T>(what: string): T {
  return new Proxy({} as object, {
    get(_, key) {
      if (key === "then") return undefined; // not a thenable: `await deps` must not trip it
      throw new Error(
        `${what}.${String(key)} is not available in a logic test: use the database lane (test/support/database.ts databaseSuite) or the stack (test/support/suite.ts stackSuite) for what crosses an engine`,
      );
    },
  }) as T;
}

/** A job the fake producer was asked to queue: the method and its payload. */
export interface QueuedJob {
  method: string;
  payload: unknown;
}

/** The producer's enqueue methods, recorded; `failWith` makes every enqueue reject (a queue that refuses). */
export class FakeProducer {
  readonly jobs: QueuedJob[] = [];
  failWith: Error | null = null;

  private async record(method: string, payload: unknown): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.jobs.push({ method, payload });
  }

  enqueueTutorTurn = (payload: unknown) => this.record("enqueueTutorTurn", payload);
  enqueueAdminTurn = (payload: unknown) => this.record("enqueueAdminTurn", payload);
  enqueueAdminAction = (payload: unknown) => this.record("enqueueAdminAction", payload);
  enqueueIngestStage = (queue: string, payload: unknown) => this.record(`enqueueIngestStage:${queue}`, payload);
  enqueueSummary = (payload: unknown) => this.record("enqueueSummary", payload);
  async close(): Promise<void> {}
}

/** An event a fake log was given: turn events and tokens as the socket would replay them. */
export interface LoggedEvent {
  sessionId: string;
  turnId: string;
  event: string;
  payload: unknown;
}

/** The turn event log in memory: appends get increasing seqs; tokens are logged as `token` events. */
export class FakeEventLog {
  readonly events: LoggedEvent[] = [];
  readonly latest = new Map<string, string>();
  private seq = 0;

  async append(sessionId: string, turnId: string, event: string, payload: unknown): Promise<number> {
    this.events.push({ sessionId, turnId, event, payload });
    return ++this.seq;
  }

  appendToken(sessionId: string, turnId: string, content: string): Promise<number> {
    return this.append(sessionId, turnId, "token", { content });
  }

  async appendAction(actionId: string, userId: string, event: string, payload: unknown): Promise<number> {
    return this.append(userId, actionId, event, payload);
  }

  /** Tokens are logged at once here: nothing is held for a frame. */
  releaseTokens(_turnId: string): void {}

  async flushed(): Promise<void> {}

  async setLatestTurn(sessionId: string, turnId: string): Promise<void> {
    this.latest.set(sessionId, turnId);
  }

  async latestTurn(sessionId: string): Promise<string | null> {
    return this.latest.get(sessionId) ?? null;
  }

  async forgetSession(sessionId: string): Promise<void> {
    this.latest.delete(sessionId);
  }

  /** The events of one turn, by name and payload. */
  of(turnId: string): Array<{ event: string; payload: unknown }> {
    return this.events.filter((logged) => logged.turnId === turnId).map(({ event, payload }) => ({ event, payload }));
  }
}

/** What a fake's test reads back: the recording producer and event log beside the deps themselves. */
export interface FakeCommandDeps extends CommandDeps {
  producer: JobProducer & FakeProducer;
  events: TurnEventLog & FakeEventLog;
}

export interface FakeWorkerDeps extends WorkerDeps {
  producer: JobProducer & FakeProducer;
  events: TurnEventLog & FakeEventLog;
}

const silent = () => pino({ level: "silent" });

/** `CommandDeps` in memory; pass `db` or `redis` only for a test that has them. */
export function fakeCommandDeps(overrides: Partial<CommandDeps> = {}): FakeCommandDeps {
  return {
    log: silent(),
    db: absent<Db>("db"),
    redis: absent<CommandDeps["redis"]>("redis"),
    // The fakes implement what commands call; the rest of the class is BullMQ and Redis plumbing.
    producer: new FakeProducer() as unknown as JobProducer & FakeProducer,
    events: new FakeEventLog() as unknown as TurnEventLog & FakeEventLog,
    ...overrides,
  } as FakeCommandDeps;
}

/** `WorkerDeps` in memory: config from `env` over the defaults, no engine, no model unless given. */
export function fakeWorkerDeps(overrides: Partial<WorkerDeps> = {}, env: Record<string, string> = {}): FakeWorkerDeps {
  const config: Config = parseConfig(testEnv({ LOG_LEVEL: "silent", LLM_BASE_URL: "http://127.0.0.1:9/v1", ...env }));
  const commands = fakeCommandDeps();
  return {
    ...commands,
    config,
    reads: absent<ReadRouter>("reads"),
    userEvents: { emit: () => undefined } as unknown as UserEventPublisher,
    llm: absent<LlmClient>("llm"),
    searchCaches: searchCaches(),
    ...overrides,
  } as FakeWorkerDeps;
}
