/**
 * What an organisation leaves in Redis, and how its deletion removes it.
 *
 * - **Jobs.** Every job of an organisation carries `orgId` in its data (queues/payloads.ts), in
 *   every queue and copy: queued ones (waiting, delayed, prioritized, waiting for children) are removed before
 *   its rows go, so none runs against a half-deleted organisation; finished ones (completed,
 *   failed) too, since their ids name its turns, documents and sessions.
 * - **Keys named by what it owns.** A turn's checkpoints, cancel flag and event log, a session's
 *   latest turn, an admin action's log: derived from the ids (queues/turn-keys.ts,
 *   queues/events/turn-stream.ts), deleted by name, never searched for.
 * - **Keys that carry the organisation's or a person's id** (rate-limit windows, idempotency
 *   records, the content-gap cache and its deduplication key, a person's socket count, and keys
 *   later features add the same way): one SCAN pass over the `skillnet:` keys, each master of a
 *   cluster, deleting those whose name contains one of those ids.
 * - **Its place on the fair clocks** (queues/fair-share.ts): the `o:<orgId>` field of every fair
 *   queue copy's hash.
 */
import type { JobType } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import { FAIR_QUEUES } from "./fair-share";
import { queuePrefix } from "./layout";
import type { QueueName } from "./names";
import type { JobProducer } from "./producer";
import { latestTurnKey, TURN_CHECKPOINTS, turnCancelKey, turnCheckpointKey } from "./turn-keys";
import { ownedKey } from "./slots";

export const QUEUED_STATES = ["wait", "delayed", "prioritized", "waiting-children"] as const satisfies readonly JobType[];
export const FINISHED_STATES = ["completed", "failed"] as const satisfies readonly JobType[];
const PAGE = 500;
const DEL_BATCH = 500;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The queues whose jobs an organisation's deletion looks through: all but its own. */
export const purgedQueues = (producer: JobProducer): Array<{ queue: QueueName; shard: number }> =>
  producer.allCopies().filter(({ queue }) => queue !== "org-delete");

/** What a purge knows of a job: its data, as every payload carries it (ids only, queues/payloads.ts). */
export type JobData = Record<string, unknown> | undefined;

/** Removes the jobs in these states whose data `matches`, in every queue but `org-delete` (and those `inQueue` accepts); returns how many. */
export async function removeJobsWhere(
  producer: JobProducer,
  states: readonly JobType[],
  matches: (data: JobData) => boolean,
  inQueue: (queue: QueueName) => boolean = () => true,
  removedIds?: string[],
): Promise<number> {
  let removed = 0;
  for (const { queue, shard } of purgedQueues(producer).filter((copy) => inQueue(copy.queue))) {
    const copy = producer.queue(queue, shard);
    const ids: string[] = [];
    for (let start = 0; ; start += PAGE) {
      const jobs = await copy.getJobs([...states], start, start + PAGE - 1, true);
      for (const job of jobs) if (job?.id && matches(job.data as JobData)) ids.push(job.id);
      if (jobs.length < PAGE) break;
    }
    for (const id of ids) removed += await copy.remove(id);
    removedIds?.push(...ids);
  }
  return removed;
}

const ofOrg = (orgId: string) => (data: JobData) => data?.orgId === orgId;
const removeJobsOf = (producer: JobProducer, orgId: string, states: readonly JobType[]): Promise<number> => removeJobsWhere(producer, states, ofOrg(orgId));

/** Removes the organisation's jobs that have not started; returns how many. */
export const removeQueuedJobsOf = (producer: JobProducer, orgId: string): Promise<number> => removeJobsOf(producer, orgId, QUEUED_STATES);

/** Removes the organisation's finished jobs (their ids and data name what it owned); returns how many. */
export const removeFinishedJobsOf = (producer: JobProducer, orgId: string): Promise<number> => removeJobsOf(producer, orgId, FINISHED_STATES);

/** How many running jobs' data `matches` (an organisation's or a person's are let finish before their rows go). */
export async function activeJobsWhere(producer: JobProducer, matches: (data: JobData) => boolean): Promise<number> {
  let active = 0;
  for (const { queue, shard } of purgedQueues(producer)) {
    const jobs = await producer.queue(queue, shard).getJobs(["active"]);
    active += jobs.filter((job) => matches(job?.data as JobData)).length;
  }
  return active;
}

/** How many of the organisation's jobs are running now (they are let finish before its rows go). */
export const activeJobsOf = (producer: JobProducer, orgId: string): Promise<number> => activeJobsWhere(producer, ofOrg(orgId));

export interface OwnedRedisIds {
  orgId: string;
  userIds: readonly string[];
  sessionIds: readonly string[];
  turnIds: readonly string[];
  actionIds: readonly string[];
}

/** A turn's checkpoints, cancel flag and event log, and a session's latest turn. */
function chatKeysOf(cluster: boolean, ids: Pick<OwnedRedisIds, "sessionIds" | "turnIds">): string[] {
  return [
    ...ids.turnIds.flatMap((turnId) => [
      ...TURN_CHECKPOINTS.map((checkpoint) => turnCheckpointKey(cluster, turnId, checkpoint)),
      turnCancelKey(cluster, turnId),
      ownedKey(cluster, turnId, `turn:${turnId}:log`),
    ]),
    ...ids.sessionIds.map((sessionId) => latestTurnKey(cluster, sessionId)),
  ];
}

/** Deletes the Redis keys of some chats (the retention sweep's batch: workers/maintenance/chat-retention.ts); returns how many there were. */
export async function removeChatKeys(redis: Redis, ids: Pick<OwnedRedisIds, "sessionIds" | "turnIds">): Promise<number> {
  return deleteKeys(redis, chatKeysOf(redis.isCluster, ids));
}

/** Deletes every key named above; returns how many keys (and fair-clock entries) were removed. */
export async function removeOwnedKeys(redis: Redis, producer: JobProducer, ids: OwnedRedisIds): Promise<{ keys: number; fairClockEntries: number }> {
  const keys = await removeKeysOwnedBy(redis, { ...ids, owners: [ids.orgId, ...ids.userIds] });
  let fairClockEntries = 0;
  for (const queue of FAIR_QUEUES) {
    for (const { shard } of producer.allCopies().filter((copy) => copy.queue === queue)) {
      fairClockEntries += await redis.hdel(`${queuePrefix(producer.layout, queue, shard)}:${queue}:fair`, `o:${ids.orgId}`);
    }
  }
  return { keys, fairClockEntries };
}

/**
 * The keys of these turns, sessions and actions (by name), and every `skillnet:` key whose name
 * carries one of the `owners` ids (one SCAN pass per master); returns how many were deleted.
 * An organisation's deletion and a person's erasure both remove their keys this way.
 */
export async function removeKeysOwnedBy(
  redis: Redis,
  ids: Pick<OwnedRedisIds, "sessionIds" | "turnIds" | "actionIds"> & { owners: readonly string[] },
): Promise<number> {
  const cluster = redis.isCluster;
  const named = [...chatKeysOf(cluster, ids), ...ids.actionIds.map((actionId) => ownedKey(cluster, actionId, `action:${actionId}:log`))];
  const owners = new Set(ids.owners.map((id) => id.toLowerCase()));
  return (
    (await deleteKeys(redis, named)) + (await removeScanned(redis, "skillnet:*", (key) => (key.match(UUID) ?? []).some((id) => owners.has(id.toLowerCase()))))
  );
}

/** Deletes the keys matching `pattern` (a SCAN MATCH) that `mine` accepts, on every master; returns how many. */
export async function removeScanned(redis: Redis, pattern: string, mine: (key: string) => boolean = () => true): Promise<number> {
  let keys = 0;
  for (const node of mastersOf(redis)) {
    let cursor = "0";
    do {
      const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      // Keys found on one node are deleted one by one there: on a cluster they need not share a slot.
      for (const key of found.filter(mine)) keys += await node.del(key);
    } while (cursor !== "0");
  }
  return keys;
}

/** DEL in batches; on a cluster one key per command (keys of different owners are in different slots). */
async function deleteKeys(redis: Redis, keys: readonly string[]): Promise<number> {
  let removed = 0;
  for (let start = 0; start < keys.length; start += DEL_BATCH) {
    const batch = keys.slice(start, start + DEL_BATCH);
    if (redis.isCluster) {
      const results = await Promise.all(batch.map((key) => redis.del(key)));
      removed += results.reduce((sum, count) => sum + count, 0);
    } else removed += await redis.del(...batch);
  }
  return removed;
}

/** The connections to SCAN: the one server, or every master of a cluster. */
function mastersOf(redis: Redis): Redis[] {
  if (!redis.isCluster) return [redis];
  // createRedis hands a Cluster out typed as Redis (queues/connection.ts); only here do we need its nodes.
  return (redis as unknown as Cluster).nodes("master");
}
