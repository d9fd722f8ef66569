/**
 * A finished answer waiting to be stored. Generate keeps the cleaned text (and what it cost) in
 * Redis between the end of the model stream and the database write, so a retry after that
 * write failed — Postgres down, the worker killed at that moment — stores the same answer
 * instead of paying the model for a second, different one. Dropped once the turn has its
 * final message.
 */
import type { Redis } from "ioredis";
import { ownedKey } from "../../queues/slots";
import type { GroundingRung } from "../../queues/events/contract";
import { HANDOFF_TTL_SECONDS } from "./retrieval/handoff";

export interface KeptAnswer {
  text: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  generationLatencyMs: number;
  /** The model stepped down (step-down.ts) from this rung: the answer is general knowledge. */
  steppedDownFrom?: GroundingRung;
}

/** With the turn's other keys (its tag on a cluster). */
const keyOf = (redis: Redis, turnId: string): string => ownedKey(redis.isCluster, turnId, `turn:${turnId}:answer`);

/** Lives as long as the sources hand-off: long enough to outlast a database outage the job waits through. */
export async function keepAnswer(redis: Redis, turnId: string, answer: KeptAnswer): Promise<void> {
  await redis.set(keyOf(redis, turnId), JSON.stringify(answer), "EX", HANDOFF_TTL_SECONDS);
}

export async function keptAnswer(redis: Redis, turnId: string): Promise<KeptAnswer | undefined> {
  const stored = await redis.get(keyOf(redis, turnId));
  return stored ? (JSON.parse(stored) as KeptAnswer) : undefined;
}

export async function dropKeptAnswer(redis: Redis, turnId: string): Promise<void> {
  await redis.del(keyOf(redis, turnId));
}
