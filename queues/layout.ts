/**
 * How the queues are laid out over Redis. BullMQ runs every operation of a queue as a Lua script
 * over several of its keys; on a Redis Cluster all those keys must be in one hash slot, so each
 * queue's BullMQ prefix carries a hash tag (the pattern BullMQ documents).
 *
 * One tagged set of tutor and admin queues would put every turn on one cluster node, so there
 * are QUEUE_SHARDS copies of that set, each under its own tag (tags spread evenly over the slot
 * range, queues/slots.ts). Every turn of a session goes to the same copy (by its session id),
 * so its turns stay in order on one node; workers serve every copy. The other queues (ingestion,
 * summaries, maintenance) carry little load and keep one copy, each under its own tag.
 *
 * On a single Redis with QUEUE_SHARDS=1 the prefix is the plain `skillnet` of before; with more
 * copies there, copy 0 keeps it, so work queued before the change is still served.
 */
import type { Config } from "../lib/config";
import { QUEUE_PREFIX, type QueueName } from "./names";
import { shardOf, spreadTags } from "./slots";

/** The queues that come in QUEUE_SHARDS copies: a tutor turn, an admin turn and its actions. */
export const SHARDED_QUEUES: readonly QueueName[] = ["tutor-generate", "admin-plan", "admin-actions"];

export interface QueueLayout {
  /** Copies of the sharded queues (1 = one). */
  shards: number;
  /** On a Redis Cluster every prefix carries a hash tag. */
  cluster: boolean;
}

/** One queue, one Redis: the layout of a deployment that never set QUEUE_SHARDS or a cluster. */
export const SINGLE_LAYOUT: QueueLayout = { shards: 1, cluster: false };

export function queueLayoutOf(config: Pick<Config, "redis">): QueueLayout {
  return { shards: config.redis.QUEUE_SHARDS, cluster: Boolean(config.redis.REDIS_CLUSTER_NODES) };
}

/** How many copies `queue` has. */
export function copiesOf(layout: QueueLayout, queue: QueueName): number {
  return SHARDED_QUEUES.includes(queue) ? layout.shards : 1;
}

/** The BullMQ prefix of copy `shard` of `queue`. */
export function queuePrefix(layout: QueueLayout, queue: QueueName, shard: number): string {
  if (!SHARDED_QUEUES.includes(queue)) return layout.cluster ? `${QUEUE_PREFIX}:{${queue}}` : QUEUE_PREFIX;
  if (!layout.cluster && shard === 0) return QUEUE_PREFIX;
  return `${QUEUE_PREFIX}:${spreadTags("q", layout.shards)[shard]}`;
}

/** The copy of the sharded queues a session's turns (tutor and admin) run in. */
export function shardOfSession(layout: QueueLayout, sessionId: string): number {
  return shardOf(sessionId, layout.shards);
}

/** The copy of `admin-actions` an action's runs go to: every run of one action in the same one. */
export function shardOfAction(layout: QueueLayout, actionId: string): number {
  return shardOf(actionId, layout.shards);
}
