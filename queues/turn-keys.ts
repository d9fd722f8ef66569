/**
 * The Redis keys a chat turn owns, named through the registry (queues/keys.ts). The server raises a
 * turn's cancel flag (`requestTurnCancel`, called by commands/cancel-turn.ts) and records a session's
 * latest turn; workers keep a turn's checkpoints, watch its flag and clear what it leaves behind
 * (workers/turns/turn-state.ts). Both layers may import queues/, so each side keeps its own half.
 *
 * On a Redis Cluster a turn's keys carry its hash tag (queues/slots.ts): its checkpoints are read
 * with one MGET and cleared with one DEL, and the cancel flags of one poll are read one MGET per tag.
 */
import type { Redis } from "ioredis";
import { redisKey, TURN_CANCEL_TTL_SECONDS, TURN_CHECKPOINTS, type TurnCheckpoint } from "./keys";

export { TURN_CHECKPOINTS, type TurnCheckpoint };

/** `skillnet:turn:<turnId>:<checkpoint>`: one stage's result, kept until the turn ends. */
export const turnCheckpointKey = (cluster: boolean, turnId: string, checkpoint: TurnCheckpoint): string =>
  redisKey("turnCheckpoint", cluster, { turnId, checkpoint });

/** `skillnet:turn:<turnId>:cancel`: set by the server when the owner cancels; read by the worker running the turn. */
export const turnCancelKey = (cluster: boolean, turnId: string): string => redisKey("turnCancel", cluster, { turnId });

/** The server's half of a cancel: marks the turn cancelled; the worker running it (or the next attempt to start) stops. */
export async function requestTurnCancel(redis: Redis, turnId: string): Promise<void> {
  await redis.set(turnCancelKey(redis.isCluster, turnId), String(Date.now()), "EX", TURN_CANCEL_TTL_SECONDS);
}

/** `skillnet:session:<sessionId>:latest-turn`: the session's newest turn, so a client that joins late knows what to replay. */
export const latestTurnKey = (cluster: boolean, sessionId: string): string => redisKey("latestTurn", cluster, { sessionId });
