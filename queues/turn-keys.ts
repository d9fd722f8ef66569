/**
 * Every Redis key a chat turn owns, in one place. The server raises a turn's cancel flag
 * (`requestTurnCancel`, called by commands/cancel-turn.ts) and records a session's latest turn; workers keep a turn's
 * checkpoints, watch its flag and clear what it leaves behind (workers/turns/turn-state.ts). Both
 * layers may import queues/, so the layout lives here and each side keeps its own half.
 *
 * On a Redis Cluster a turn's keys carry its hash tag (queues/slots.ts): its checkpoints are read
 * with one MGET and cleared with one DEL, and the cancel flags of one poll are read one MGET per tag.
 */
import type { Redis } from "ioredis";
import { ownedKey } from "./slots";

/** What a redelivered attempt of a tutor turn picks up instead of doing again. */
export const TURN_CHECKPOINTS = ["intent", "retrieval", "answer"] as const;
export type TurnCheckpoint = (typeof TURN_CHECKPOINTS)[number];

/** `skillnet:turn:<turnId>:<checkpoint>`: one stage's result, kept until the turn ends. */
export const turnCheckpointKey = (cluster: boolean, turnId: string, checkpoint: TurnCheckpoint): string =>
  ownedKey(cluster, turnId, `turn:${turnId}:${checkpoint}`);

/** `skillnet:turn:<turnId>:cancel`: set by the server when the owner cancels; read by the worker running the turn. */
export const turnCancelKey = (cluster: boolean, turnId: string): string => ownedKey(cluster, turnId, `turn:${turnId}:cancel`);

/** Longer than any turn can wait in a queue or retry: the flag outlives every attempt, so one that starts late still stops. */
const TURN_CANCEL_TTL_SECONDS = 24 * 3600;

/** The server's half of a cancel: marks the turn cancelled; the worker running it (or the next attempt to start) stops. */
export async function requestTurnCancel(redis: Redis, turnId: string): Promise<void> {
  await redis.set(turnCancelKey(redis.isCluster, turnId), String(Date.now()), "EX", TURN_CANCEL_TTL_SECONDS);
}

/** `skillnet:session:<sessionId>:latest-turn`: the session's newest turn, so a client that joins late knows what to replay. */
export const latestTurnKey = (cluster: boolean, sessionId: string): string => ownedKey(cluster, sessionId, `session:${sessionId}:latest-turn`);
