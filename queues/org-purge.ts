/**
 * What an organisation leaves in Redis, and how its deletion removes it.
 *
 * - **Jobs.** Every job of an organisation carries `orgId` in its data (queues/payloads.ts), in
 *   every queue and copy: queued ones (waiting, delayed, prioritized, waiting for children) are removed before
 *   its rows go, so none runs against a half-deleted organisation; finished ones (completed,
 *   failed) too, since their ids name its turns, documents and sessions.
 * - **Its keys, its people's, and its sessions', turns' and actions'**: every family the key
 *   registry (queues/keys.ts) gives those owners, deleted through it (queues/key-purge.ts): by
 *   name where the family allows, else read from one SCAN pass by each family's template.
 * - **Its place on the fair clocks** (queues/fair-share.ts): the `o:<orgId>` field of every fair
 *   queue copy's hash.
 */
import type { JobType } from "bullmq";
import type { Redis } from "ioredis";
import { FAIR_QUEUES } from "./fair-share";
import { queuePrefix } from "./layout";
import type { QueueName } from "./names";
import type { JobProducer } from "./producer";
import { removeKeysOfOwners } from "./key-purge";

export const QUEUED_STATES = ["wait", "delayed", "prioritized", "waiting-children"] as const satisfies readonly JobType[];
export const FINISHED_STATES = ["completed", "failed"] as const satisfies readonly JobType[];
const PAGE = 500;

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

/** Deletes the Redis keys of some chats (the retention sweep's batch: workers/maintenance/chat-retention.ts); returns how many there were. */
export async function removeChatKeys(redis: Redis, ids: Pick<OwnedRedisIds, "sessionIds" | "turnIds">): Promise<number> {
  return removeKeysOfOwners(redis, { session: ids.sessionIds, turn: ids.turnIds });
}

/** Deletes every key named above; returns how many keys (and fair-clock entries) were removed. */
export async function removeOwnedKeys(redis: Redis, producer: JobProducer, ids: OwnedRedisIds): Promise<{ keys: number; fairClockEntries: number }> {
  const keys = await removeKeysOfOwners(redis, {
    organisation: [ids.orgId],
    person: ids.userIds,
    session: ids.sessionIds,
    turn: ids.turnIds,
    action: ids.actionIds,
  });
  let fairClockEntries = 0;
  for (const queue of FAIR_QUEUES) {
    for (const { shard } of producer.allCopies().filter((copy) => copy.queue === queue)) {
      fairClockEntries += await redis.hdel(`${queuePrefix(producer.layout, queue, shard)}:${queue}:fair`, `o:${ids.orgId}`);
    }
  }
  return { keys, fairClockEntries };
}
