/**
 * Runs BullMQ workers for the queues config names, each with its concurrency. Every job's
 * payload is parsed before the handler sees it; a malformed job fails without retry.
 * Errors are rethrown so BullMQ's retry policy applies; nothing is swallowed.
 */
import { DelayedError, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { type Config, requireSetting } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { createDb } from "../db/knex";
import { refuseIfDatabaseFull } from "../db/connection-limit";
import { isDatabaseUnavailable } from "../db/unavailable";
import { createRedis, redisTargetOf, replicaWaitMs, requireRedisVersion } from "../queues/connection";
import { TurnEventLog } from "../queues/events/turn-stream";
import { UserEventPublisher } from "../queues/events/user-events";
import { copiesOf, queueLayoutOf, queuePrefix } from "../queues/layout";
import { QUEUE_NAMES, isQueueName, type QueueName } from "../queues/names";
import { parsePayload } from "../queues/payloads";
import { JobProducer } from "../queues/producer";
import type { WorkerDeps } from "./deps";
import { jobFailureReason } from "./stored-failure";
import { searchCaches } from "./search-caches";
import { checkEmbeddingDimensions } from "./embedding-check";
import { HANDLERS } from "./handlers";
import { LlmClient, type LlmClientOptions } from "./llm/client";
import { QueryEmbeddingCache } from "./llm/query-embeddings";
import { LlmError } from "./llm/errors";
import { handlerFor, type FailureOutcome, type JobContext, type JobHandler } from "./registry";
import { closeThreadPool, probeThreadPool, warmExtractionThreads } from "./ingestion/isolation";
import { maintenanceSchedule } from "./maintenance/schedule";
import { ActiveJobs, type JobLease } from "./hand-back";
import { usageLogSink } from "./usage-log";
import { finishWorkerClose } from "./worker-close";
import { withCallScope } from "./llm/call-keys";
import { startReplicaReads } from "./replica-reads";
import { loadTokenizer } from "./llm/tokens";
import { queueTelemetry } from "../queues/telemetry";
import { watchBlockingClients } from "./blocking-client-watch";
import { FAIR_QUEUES } from "../queues/fair-share";
import { OrgSlots } from "./fair-reserve";
import { AdaptiveLimit, modelStreamCeiling } from "./adaptive-concurrency";
import { eventLoopLag, followLoad, type FollowedWorker, type LagSource } from "./load-follower";
import { jobLogBindings, observeJobAttempt, reportStalledOut, StalledOutError, stalledOut } from "./job-outcome";

/** Queues whose jobs read files in the extraction threads: a worker serving one checks the threads start. */
const THREAD_BOUND: readonly QueueName[] = ["ingest-extract", "ingest-chunk", "chat-attachment"];
/** How long a first thread may take to start and load the readers (about 1 s on a quiet machine). */
const THREAD_PROBE_TIMEOUT_MS = 30_000;

/** Sweeps, the CPU-bound content-gap grouping, organisation deletions and person data exports and erasures: one job at a time per worker under `all`. */
const ONE_AT_A_TIME: readonly QueueName[] = ["maintenance", "content-gaps", "org-delete", "person-data"];

/** Queues whose jobs mostly wait on the model's stream: unless pinned, their concurrency follows the load (adaptive-concurrency.ts). */
const MODEL_BOUND: readonly QueueName[] = ["tutor-generate", "admin-plan"];

/** A queue's slots per worker process: a fixed number, or following the load up to a ceiling. */
export type QueueConcurrency = { fixed: number } | { adaptiveUpTo: number };

export interface ConcurrencyDefaults {
  /** WORKER_CONCURRENCY: every queue that names none, except the model-bound ones. */
  concurrency: number;
  /** WORKER_MODEL_CONCURRENCY: set, the model-bound queues that name none are fixed at it. */
  modelConcurrency?: number | undefined;
  /** The process's ceiling for its model-bound streams, all queues together (modelStreamCeiling); each adaptive queue may use all of it. */
  modelCeiling: (queues: number) => number;
}

/** `all` or `tutor-generate:50,ingest-embed:2` → queue → concurrency. A number given is fixed; a model-bound queue without one follows the load. */
export function parseQueueSelection(spec: string, defaults: ConcurrencyDefaults): Map<QueueName, QueueConcurrency> {
  const named = new Map<QueueName, number | undefined>();
  if (spec.trim() === "all") {
    for (const name of QUEUE_NAMES) named.set(name, ONE_AT_A_TIME.includes(name) ? 1 : undefined);
  } else {
    for (const part of spec.split(",")) {
      const [name = "", concurrency] = part.trim().split(":");
      if (!isQueueName(name)) throw new Error(`WORKER_QUEUES names an unknown queue "${name}"; known: ${QUEUE_NAMES.join(", ")}`);
      named.set(name, concurrency ? Number(concurrency) : undefined);
    }
  }
  const adaptive = (name: QueueName, slots: number | undefined) => slots === undefined && MODEL_BOUND.includes(name) && defaults.modelConcurrency === undefined;
  // Each adaptive queue may take the process's whole ceiling: the streams of all of them together are held under it (followLoad's budget).
  const ceiling = defaults.modelCeiling(1);
  const selection = new Map<QueueName, QueueConcurrency>();
  for (const [name, slots] of named) {
    if (adaptive(name, slots)) selection.set(name, { adaptiveUpTo: ceiling });
    else selection.set(name, { fixed: slots ?? (MODEL_BOUND.includes(name) ? defaults.modelConcurrency! : defaults.concurrency) });
  }
  return selection;
}

export interface RunningWorkers {
  deps: WorkerDeps;
  workers: Worker[];
  close(): Promise<void>;
}

export interface StartOptions {
  llm?: LlmClientOptions;
  skipEmbeddingCheck?: boolean;
  /** The event-loop delay the adaptive queues follow (load-follower.ts); tests give their own. */
  lag?: LagSource;
}

export async function startWorkers(config: Config, options: StartOptions = {}): Promise<RunningWorkers> {
  const log = componentLogger("worker");
  // One budget for the process's model-bound streams, whichever queue runs them.
  const modelBudget = modelStreamCeiling(1);
  const selection = parseQueueSelection(config.workers.WORKER_QUEUES, {
    concurrency: config.workers.WORKER_CONCURRENCY,
    modelConcurrency: config.workers.WORKER_MODEL_CONCURRENCY,
    modelCeiling: () => modelBudget,
  });
  const redisTarget = redisTargetOf(config);
  const layout = queueLayoutOf(config);
  const db = createDb({
    url: requireSetting(config.database, "DATABASE_URL"),
    poolMax: config.database.DATABASE_POOL_MAX,
    statementTimeoutMs: config.database.DATABASE_STATEMENT_TIMEOUT_MS,
  });
  const redis = createRedis(redisTarget, "worker", log);
  const replicaReads = await startReplicaReads(config, db, redis, log);
  // Behind Sentinel each event batch waits (WAIT 1) for a replica: on a connection of its own, so no other command queues behind it.
  const ownEventsRedis = replicaWaitMs(config) > 0 ? createRedis(redisTarget, "worker", log) : undefined;
  const llm = new LlmClient(config, {
    usage: usageLogSink(db, { defaultMonthlyTokens: config.organisations.AI_MONTHLY_TOKENS_PER_ORG }),
    log,
    queryCache: new QueryEmbeddingCache(redis, config.embedding.EMBEDDING_QUERY_CACHE_TTL_SECONDS, log),
    ...options.llm,
  });
  const deps: WorkerDeps = {
    config,
    log,
    db,
    reads: replicaReads.router,
    redis,
    llm,
    searchCaches: searchCaches(),
    producer: new JobProducer(redis, log, layout),
    events: new TurnEventLog(ownEventsRedis ?? redis, {
      ttlSeconds: config.redis.EVENT_STREAM_TTL_SECONDS,
      maxEvents: config.redis.EVENT_STREAM_MAX_EVENTS,
      replicaWaitMs: replicaWaitMs(config),
      frameMs: config.workers.STREAM_FRAME_MS,
    }),
    userEvents: new UserEventPublisher(redis),
  };
  try {
    await requireRedisVersion(redis);
    await refuseIfDatabaseFull(requireSetting(config.database, "DATABASE_URL"), config.database.DATABASE_POOL_MAX);
    if (!options.skipEmbeddingCheck) await checkEmbeddingDimensions(config, db, llm, log);
    if (THREAD_BOUND.some((queue) => selection.has(queue))) {
      await probeThreadPool(config.ingestion, THREAD_PROBE_TIMEOUT_MS, log);
      void warmExtractionThreads(config, log);
    }
  } catch (error) {
    await Promise.allSettled([replicaReads.close(), redis.quit(), ownEventsRedis?.quit(), db.destroy()]);
    throw error;
  }

  // Before any job: its first use would block the event loop mid-stream (tokens.ts).
  loadTokenizer();

  const connections: Redis[] = [];
  const active = new ActiveJobs(log);
  const orgSlots = new OrgSlots();
  const followed: FollowedWorker[] = [];
  // Every copy of a queue (QUEUE_SHARDS, queues/layout.ts) gets its own Worker, sharing the
  // queue's connection (BullMQ gives each its own blocking one) and its share of the concurrency
  // (of an adaptive queue: of the ceiling, each copy following the load on its own, at least 1);
  // a fair queue's copy also gets FAIR_RESERVED_SLOTS slots for light organisations (fair-reserve.ts).
  const workers = [...selection].flatMap(([queue, concurrency]) => {
    const connection = createRedis(redisTarget, "worker", log);
    connections.push(connection);
    const copies = copiesOf(layout, queue);
    const reserved = (FAIR_QUEUES as readonly string[]).includes(queue) ? config.workers.FAIR_RESERVED_SLOTS : 0;
    const perCopy = Math.max(1, Math.ceil(("fixed" in concurrency ? concurrency.fixed : concurrency.adaptiveUpTo) / copies));
    return Array.from({ length: copies }, (_, shard) => {
      const normal = startWorker(queue, shard, connection, perCopy, (job, _token, attempt) => orgSlots.hold(queue, shard, job.data?.orgId, attempt));
      if ("adaptiveUpTo" in concurrency)
        followed.push({
          queue,
          worker: normal,
          limit: new AdaptiveLimit(perCopy, config.workers.WORKER_LAG_TARGET_MS),
          running: () => orgSlots.running(queue, shard),
        });
      if (reserved === 0) return [normal];
      // "Every normal slot busy" counts the slots the copy has now: an adaptive copy's limit moves.
      return [
        normal,
        startWorker(queue, shard, connection, reserved, (job, token, attempt) => orgSlots.reserve(queue, shard, normal.concurrency, job, token, attempt)),
      ];
    }).flat();
  });
  /** `slot` runs a job's attempt in the worker's kind of slot (fair-reserve.ts). */
  function startWorker(
    queue: QueueName,
    shard: number,
    connection: Redis,
    concurrency: number,
    slot: (job: Job, token: string, attempt: () => Promise<unknown>) => Promise<unknown>,
  ): Worker {
    const handler = handlerFor(HANDLERS, queue);
    const worker = new Worker(
      queue,
      (job, token) =>
        slot(job, token!, () => observeJobAttempt(redis, log, queue, job, () => runJob(handler, job, deps, (data) => active.lease(job, token!, data)))),
      {
        connection,
        prefix: queuePrefix(layout, queue, shard),
        concurrency,
        lockDuration: config.workers.WORKER_LOCK_DURATION_MS,
        stalledInterval: config.workers.WORKER_STALLED_INTERVAL_MS,
        maxStalledCount: config.workers.WORKER_MAX_STALLED_COUNT,
        ...queueTelemetry(),
      },
    );
    worker.on("error", (error) => log.error({ err: error, queue }, "worker error"));
    // A job whose worker died too often fails without its handler running: give it its final word here.
    worker.on("failed", (job, error) => {
      if (!job || !stalledOut(job, config.workers.WORKER_MAX_STALLED_COUNT)) return;
      reportStalledOut(redis, queue);
      const parsed = parsePayload(queue, job.data);
      if (!parsed.success) return;
      const stalled = new StalledOutError(error.message);
      void reportFailure(handler, { job, data: parsed.data, deps, log: log.child(jobLogBindings(queue, job)) }, stalled, { final: true });
    });
    return worker;
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const stopWatchingClients = layout.cluster ? watchBlockingClients(workers, log) : () => undefined;
  if (selection.has("maintenance")) {
    await deps.producer.scheduleMaintenance(maintenanceSchedule(config));
  }
  const stopFollowing = followLoad(followed, options.lag ?? eventLoopLag(), log, { budget: modelBudget });
  log.info(
    {
      queues: Object.fromEntries([...selection].map(([queue, concurrency]) => [queue, "fixed" in concurrency ? concurrency.fixed : concurrency])),
      ...(followed.length > 0 ? { lagTargetMs: config.workers.WORKER_LAG_TARGET_MS } : {}),
    },
    "workers started",
  );

  return {
    deps,
    workers,
    async close() {
      // Stop taking jobs, give the running ones WORKER_DRAIN_MS to finish, then hand the rest
      // back so another worker continues them now rather than after their locks expire.
      stopWatchingClients();
      stopFollowing();
      const closing = workers.map((worker) => worker.close());
      await active.drain(config.workers.WORKER_DRAIN_MS);
      await active.handBackAll();
      await Promise.all(workers.map((worker, i) => finishWorkerClose(worker, closing[i]!, log)));
      await closeThreadPool();
      await deps.events.flushed();
      await deps.producer.close();
      await replicaReads.close();
      await Promise.allSettled([redis.quit(), ownEventsRedis?.quit(), ...connections.map((c) => c.quit())]);
      await db.destroy();
      log.info("workers stopped");
    },
  };
}

async function runJob<Q extends QueueName>(handler: JobHandler<Q>, job: Job, deps: WorkerDeps, lease: (deps: WorkerDeps) => JobLease): Promise<unknown> {
  const queue = handler.queue;
  const parsed = parsePayload(queue, job.data);
  const log = deps.log.child({ queue, jobId: job.id, sessionId: job.data?.sessionId, turnId: job.data?.turnId });
  if (!parsed.success) {
    log.error({ issues: parsed.error.issues }, "malformed job payload; failing without retry");
    throw new UnrecoverableError(`malformed ${queue} payload: ${parsed.error.message}`);
  }
  const running = lease(deps);
  const context: JobContext<Q> = { job, data: parsed.data, deps: running.deps, log };
  try {
    // Model calls are named after the job, so a retried or re-run job is not charged twice for the same call.
    return await running.run(withCallScope(`${queue}:${job.id}`, () => handler.perform(context)));
  } catch (error) {
    // Handed back by a stopping worker: not a failure, another worker runs it now.
    if (running.handedBack) throw error;
    if (await pausedForDatabase(job, error, deps, log)) throw new DelayedError();
    const attempts = job.opts.attempts ?? 1;
    const willRetry = !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < attempts;
    log.warn({ err: error, attempt: job.attemptsMade + 1, attempts, willRetry }, "job attempt failed");
    await reportFailure(handler, context, error, { final: !willRetry });
    // BullMQ keeps the thrown error's message and stack for 14 days: never a statement or its values.
    throw jobFailureReason(error);
  }
}

/** The stage's failure hook, for a failed attempt or a stalled-out job; a failing hook is logged, never thrown. */
async function reportFailure<Q extends QueueName>(handler: JobHandler<Q>, context: JobContext<Q>, error: unknown, outcome: FailureOutcome): Promise<void> {
  try {
    await handler.onFailed?.(context, error, outcome);
  } catch (hookError) {
    context.log.error({ err: hookError, final: outcome.final }, "failure hook failed");
  }
}

/**
 * Postgres unreachable is not this job's fault and retrying at once will not help: the job goes
 * back to the delayed set for WORKER_DATABASE_PAUSE_MS without using an attempt (BullMQ's
 * `moveToDelayed` + `DelayedError`), so a stage waits out an outage of any length and carries on
 * when the database returns. Model errors mention connections too, but they are the model's.
 */
async function pausedForDatabase(job: Job, error: unknown, deps: WorkerDeps, log: Logger): Promise<boolean> {
  if (error instanceof UnrecoverableError || error instanceof LlmError || !isDatabaseUnavailable(error)) return false;
  try {
    await job.moveToDelayed(Date.now() + deps.config.workers.WORKER_DATABASE_PAUSE_MS, job.token);
  } catch (moveError) {
    log.warn({ err: moveError }, "could not put the job back while the database is down; counting a failed attempt");
    return false;
  }
  log.warn(
    { err: error, pauseMs: deps.config.workers.WORKER_DATABASE_PAUSE_MS, attemptsMade: job.attemptsMade },
    "database unavailable; job put back without using an attempt",
  );
  return true;
}
