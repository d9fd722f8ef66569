/**
 * Around every job attempt: the ids every log line inside it carries (whichever logger writes
 * it, the LLM client's included), a `job completed` line, and one message to the servers' /metrics when it ends with the
 * attempt's duration and, for a failure, a code from a small fixed set so the `code` label stays
 * bounded (EXTRACTION_THREAD_FAILED: a reader thread could not start or crashed). Model errors keep their LlmError code (also when wrapped as UnrecoverableError's
 * cause), which is how /metrics counts model errors per queue, including retried attempts no
 * client ever sees.
 */
import { DelayedError, RateLimitError, UnrecoverableError, WaitingChildrenError, WaitingError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { withLogContext } from "../lib/logger";
import { publishJobEnd } from "../queues/events/job-events";
import type { QueueName } from "../queues/names";
import { ExtractionThreadError } from "./ingestion/isolation/thread-pool";
import { LlmError } from "./llm/errors";

/**
 * A job BullMQ failed because its workers kept dying: the handler never ran. Built by the host
 * from BullMQ's own mark (`stalledOut`), so nothing downstream reads the failure's wording.
 */
export class StalledOutError extends UnrecoverableError {
  constructor(reason: string) {
    super(reason);
    this.name = "StalledOutError";
  }
}

/**
 * BullMQ's signal for a stalled-out job: its stalled checker counted more than `maxStalledCount`
 * stalls (`stalledCounter`) and set a deferred failure, which the next worker turns into the
 * `failed` event without running the job. A flow parent failed by its child has a deferred
 * failure too, but no stalls.
 */
export function stalledOut(job: Pick<Job, "deferredFailure" | "stalledCounter">, maxStalledCount: number): boolean {
  return Boolean(job.deferredFailure) && job.stalledCounter > maxStalledCount;
}

/** The bounded `code` label of a failed job attempt in /metrics and in a failed turn's `failure_kind`. */
export function jobFailureCode(error: unknown): string {
  const cause = error instanceof UnrecoverableError && error.cause instanceof LlmError ? error.cause : error;
  if (cause instanceof LlmError) return cause.code;
  if (error instanceof ExtractionThreadError) return error.code;
  if (error instanceof StalledOutError) return "STALLED";
  if (error instanceof UnrecoverableError) return "UNRECOVERABLE";
  return "INTERNAL_ERROR";
}

/** BullMQ's "moved on purpose" signals (handed back, delayed, waiting for children): not failures. */
const isDeliberateMove = (error: unknown): boolean =>
  error instanceof WaitingError || error instanceof DelayedError || error instanceof WaitingChildrenError || error instanceof RateLimitError;

/** The ids of a job as log fields; payloads of turns carry sessionId and turnId. */
export function jobLogBindings(queue: QueueName, job: Job): { queue: QueueName; jobId?: string; sessionId?: string; turnId?: string } {
  const data = (job.data ?? {}) as { sessionId?: unknown; turnId?: unknown };
  return {
    queue,
    jobId: job.id,
    sessionId: typeof data.sessionId === "string" ? data.sessionId : undefined,
    turnId: typeof data.turnId === "string" ? data.turnId : undefined,
  };
}

/**
 * Runs one attempt with its log context and reports how it ended. The metrics message is fire
 * and forget: it never delays the job, and a Redis hiccup never fails it.
 */
export async function observeJobAttempt<T>(redis: Redis, log: Logger, queue: QueueName, job: Job, attempt: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const durationMs = (): number => Math.round(performance.now() - started);
  return withLogContext(jobLogBindings(queue, job), async () => {
    try {
      const result = await attempt();
      const ms = durationMs();
      // Failed attempts are logged where they are handled (runJob); this is the success line of every stage.
      // Periodic sweeps would fill the log with it, so theirs is debug.
      log[(queue as string) === "maintenance" ? "debug" : "info"]({ ms, attempt: job.attemptsMade + 1 }, "job completed");
      publishJobEnd(redis, { queue, outcome: "completed", durationMs: ms });
      return result;
    } catch (error) {
      if (!isDeliberateMove(error)) {
        const willRetry = !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
        publishJobEnd(redis, { queue, outcome: "failed", willRetry, durationMs: durationMs(), errorCode: jobFailureCode(error) });
      }
      throw error;
    }
  });
}

/** A job BullMQ failed because its workers kept dying (no handler ran to time it). */
export function reportStalledOut(redis: Redis, queue: QueueName): void {
  publishJobEnd(redis, { queue, outcome: "failed", willRetry: false, errorCode: "STALLED" });
}
