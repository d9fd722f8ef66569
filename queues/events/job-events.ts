/**
 * One small message per finished job attempt, published by workers and observed by every server
 * node for /metrics (workers serve no HTTP). Chosen over BullMQ `QueueEvents` because that costs
 * one blocking Redis connection per queue on every server node and replays the whole events
 * stream; a PUBLISH per job end rides the server's existing turn-event subscriber instead. Like
 * turn events, a message nobody hears is simply lost: fine for metrics, never used for logic.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { channelName } from "../keys";
import { QUEUE_NAMES } from "../names";
import { feedChannel, publishFeed } from "./feed";

export const JOB_EVENTS_CHANNEL = channelName("jobEventsChannel");

/**
 * The labels a tutor turn's stages before generation report under, beside the queues: a turn is
 * one `tutor-generate` job, and these keep its classify and retrieve attempts apart in the
 * per-queue duration and failure series (workers/tutor/stage-report.ts).
 */
export const STAGE_METRIC_LABELS = ["tutor-classify", "tutor-retrieve"] as const;
export type StageMetricLabel = (typeof STAGE_METRIC_LABELS)[number];

const jobEnd = z.object({
  /** The queue, or a tutor stage's label. */
  queue: z.enum([...QUEUE_NAMES, ...STAGE_METRIC_LABELS]),
  outcome: z.enum(["completed", "failed"]),
  /** Failed attempts only: BullMQ will run the job again. */
  willRetry: z.boolean().optional(),
  /** Wall time of this attempt in the handler; absent for jobs that stalled out (their worker died). */
  durationMs: z.number().min(0).optional(),
  /** Failed attempts: an LLM error code (`LLM_UNAVAILABLE`, …), `EXTRACTION_THREAD_FAILED`, `STALLED`, `UNRECOVERABLE` or `INTERNAL_ERROR`. */
  errorCode: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,47}$/)
    .optional(),
});
export type JobEnd = z.infer<typeof jobEnd>;

/** Fire and forget: a worker never waits on (or fails because of) its metrics. */
export function publishJobEnd(redis: Redis, event: JobEnd): void {
  publishFeed(redis, feedChannel(redis.isCluster, JOB_EVENTS_CHANNEL, event.queue), JSON.stringify(event)).catch(() => undefined);
}

export function parseJobEnd(message: string): JobEnd | null {
  try {
    const parsed = jobEnd.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Reads a worker sent to the primary because its read replica was skipped (down or lagging past
 * DATABASE_READ_MAX_LAG_MS), counted since its last message; same channel, same fire and forget.
 */
const replicaSkips = z.object({ replicaSkips: z.object({ down: z.number().int().min(0), lagging: z.number().int().min(0) }) });
export type ReplicaSkips = z.infer<typeof replicaSkips>["replicaSkips"];

export function publishReplicaSkips(redis: Redis, skips: ReplicaSkips): void {
  publishFeed(redis, feedChannel(redis.isCluster, JOB_EVENTS_CHANNEL, "replica-skips"), JSON.stringify({ replicaSkips: skips })).catch(() => undefined);
}

export function parseReplicaSkips(message: string): ReplicaSkips | null {
  try {
    const parsed = replicaSkips.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data.replicaSkips : null;
  } catch {
    return null;
  }
}
