/**
 * How `tutor-retrieve` hands its sources to `tutor-generate` without making them a job return
 * value: BullMQ keeps return values (shown in Bull Board) for a day, and sources are lesson
 * text, company documents and a learner's progress. The full outcome goes to a Redis key owned
 * by the turn, with a TTL that outlives any retry; the job returns only a summary. Generate
 * deletes the key when the turn is answered; if the key is gone (expired, Redis flushed) it
 * re-runs retrieval from the intent in the summary, so a late retry still has sources.
 *
 * When a turn runs as one job, these keys are also its checkpoints: the classification is kept
 * here too, so a redelivered attempt (a crashed or stopping worker, a retry) starts at the first
 * stage whose result is not kept — it neither asks the model to classify again nor shows a stage
 * twice. `release` drops them all once the turn has ended.
 */
import type { Redis } from "ioredis";
import { ownedKey } from "../../../queues/slots";
import { classifyResult, type ClassifyResult, type RetrievalSummary } from "../../../queues/payloads";
import type { RetrievalOutcome } from "./types";

export type { RetrievalSummary };

/** Covers backoff, stalled-job recovery and a long queue; past it generate retrieves again. */
export const HANDOFF_TTL_SECONDS = 3600;

/** With the turn's other keys (its tag on a cluster). */
const keyOf = (redis: Redis, turnId: string): string => ownedKey(redis.isCluster, turnId, `turn:${turnId}:retrieval`);
const classificationKeyOf = (redis: Redis, turnId: string): string => ownedKey(redis.isCluster, turnId, `turn:${turnId}:intent`);

export function summarise(outcome: RetrievalOutcome): RetrievalSummary {
  return {
    intent: outcome.intent,
    rung: outcome.rung,
    source: outcome.source,
    sourceCount: outcome.sources.length,
    sources: outcome.sources.map(({ index, sourceType, sourceId }) => ({ index, sourceType, sourceId })),
    truncated: outcome.truncated,
    latencyMs: outcome.latencyMs,
  };
}

/** Stores the turn's outcome for generate and returns the summary to use as the job's return value. */
export async function handOver(redis: Redis, turnId: string, outcome: RetrievalOutcome): Promise<RetrievalSummary> {
  await redis.set(keyOf(redis, turnId), JSON.stringify(outcome), "EX", HANDOFF_TTL_SECONDS);
  return summarise(outcome);
}

/** The outcome retrieve stored for this turn, or undefined when it is gone. */
export async function takeOver(redis: Redis, turnId: string): Promise<RetrievalOutcome | undefined> {
  const stored = await redis.get(keyOf(redis, turnId));
  return stored ? (JSON.parse(stored) as RetrievalOutcome) : undefined;
}

export async function keepClassification(redis: Redis, turnId: string, result: ClassifyResult): Promise<void> {
  await redis.set(classificationKeyOf(redis, turnId), JSON.stringify(result), "EX", HANDOFF_TTL_SECONDS);
}

/** The kept classification, or undefined when none is (or what is kept is not one). */
export async function keptClassification(redis: Redis, turnId: string): Promise<ClassifyResult | undefined> {
  const stored = await redis.get(classificationKeyOf(redis, turnId));
  if (!stored) return undefined;
  const parsed = classifyResult.safeParse(JSON.parse(stored));
  return parsed.success ? parsed.data : undefined;
}

/** Drops the turn's kept stage results once its answer is stored (or the turn has failed for good); one command, the keys share a slot. */
export async function release(redis: Redis, turnId: string): Promise<void> {
  await redis.del(keyOf(redis, turnId), classificationKeyOf(redis, turnId));
}
