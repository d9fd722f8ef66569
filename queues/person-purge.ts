/**
 * What one person leaves in Redis, and how their erasure removes it (the organisation's deletion
 * does the same for everyone at once: queues/org-purge.ts).
 *
 * - **Jobs** whose data names them: their id (`userId`: their turns, the admin actions they ran,
 *   the documents they uploaded), one of their sessions (`sessionId`: summaries), one of their
 *   exports (`exportId`). Queued ones go before their rows do, except ingestion stages (the
 *   document is the company's, and it would never be indexed); finished ones at the end.
 * - **Queue events** (each queue's capped `…:events` stream, which Bull Board and QueueEvents
 *   read) that name those jobs — their ids are their turns' and sessions' — removing them included.
 * - **Their keys, and their sessions', turns' and actions'**: every family the key registry
 *   (queues/keys.ts) gives those owners — turn logs and checkpoints, latest turns, action logs,
 *   rate-limit windows, idempotency records (with the answers they replay), their socket leases,
 *   the cached embeddings of the questions they asked (listed by their `questionsAsked` index;
 *   a colleague's questions stay) — deleted through it (queues/key-purge.ts).
 * - **The organisation's entries that quote people** (`quotesPeople`: the cached content-gap
 *   reports quote the questions people asked, theirs among them); the next page load computes
 *   them again.
 * - **The Redis keys of admins' turns that named them** (the streamed answer's log, checkpoints):
 *   their stored messages are scrubbed (db/queries/person-erasure-admin-chats.ts), these go.
 */
import type { Redis } from "ioredis";
import { queuePrefix } from "./layout";
import { type KeyOwners, removeKeysOfOwners } from "./key-purge";
import { type JobData, activeJobsWhere, FINISHED_STATES, purgedQueues, QUEUED_STATES, removeJobsWhere } from "./org-purge";
import type { JobProducer } from "./producer";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const EVENTS_PAGE = 1_000;

export interface PersonOwnedIds {
  orgId: string;
  userId: string;
  sessionIds: readonly string[];
  turnIds: readonly string[];
  actionIds: readonly string[];
  exportIds: readonly string[];
}

/** Document stages are the company's: a queued one is let run (it carries the uploader's id only until it is done). */
const INGEST_STAGE = /^ingest-/;

function namesPerson(ids: PersonOwnedIds): (data: JobData) => boolean {
  const sessions = new Set(ids.sessionIds);
  const exports = new Set(ids.exportIds);
  const actions = new Set(ids.actionIds);
  return (data) =>
    data?.orgId === ids.orgId &&
    (data.userId === ids.userId || sessions.has(String(data.sessionId)) || exports.has(String(data.exportId)) || actions.has(String(data.actionId)));
}

/** Removes the person's jobs that have not started (not document stages); returns how many. `removedIds` hears their ids. */
export const removeQueuedJobsOfPerson = (producer: JobProducer, ids: PersonOwnedIds, removedIds?: string[]): Promise<number> =>
  removeJobsWhere(producer, QUEUED_STATES, namesPerson(ids), (queue) => !INGEST_STAGE.test(queue), removedIds);

/** Removes the person's finished jobs (their data names the person, their sessions or exports); returns how many. `removedIds` hears their ids. */
export const removeFinishedJobsOfPerson = (producer: JobProducer, ids: PersonOwnedIds, removedIds?: string[]): Promise<number> =>
  removeJobsWhere(producer, FINISHED_STATES, namesPerson(ids), () => true, removedIds);

/**
 * Deletes the queue events that name the person's ids or jobs (every copy's `…:events` stream,
 * read a page at a time: BullMQ caps each at 10,000 entries); returns how many.
 */
export async function removeJobEventsOfPerson(redis: Redis, producer: JobProducer, ids: PersonOwnedIds, jobIds: readonly string[]): Promise<number> {
  const named = new Set([ids.userId, ...ids.sessionIds, ...ids.turnIds, ...ids.actionIds, ...ids.exportIds].map((id) => id.toLowerCase()));
  const jobs = new Set(jobIds);
  const theirs = (value: string) => jobs.has(value) || (value.match(UUID) ?? []).some((id) => named.has(id.toLowerCase()));
  let removed = 0;
  for (const { queue, shard } of purgedQueues(producer)) {
    const key = `${queuePrefix(producer.layout, queue, shard)}:${queue}:events`;
    for (let start = "-"; ; ) {
      const entries = await redis.xrange(key, start, "+", "COUNT", EVENTS_PAGE);
      const mine = entries.filter(([, fields]) => fields.some(theirs)).map(([id]) => id);
      if (mine.length > 0) removed += await redis.xdel(key, ...mine);
      if (entries.length < EVENTS_PAGE) break;
      start = `(${entries[entries.length - 1]![0]}`;
    }
  }
  return removed;
}

/** How many of the person's jobs are running now (a streaming answer is let end before its rows go). */
export const activeJobsOfPerson = (producer: JobProducer, ids: PersonOwnedIds): Promise<number> => activeJobsWhere(producer, namesPerson(ids));

/** Whose keys a person's erasure removes: theirs, their sessions', turns' and actions', and the admins' turns that named them. */
export const personKeyOwners = (ids: PersonOwnedIds, adminTurnIds: readonly string[] = []): KeyOwners => ({
  person: [ids.userId],
  session: ids.sessionIds,
  turn: [...ids.turnIds, ...adminTurnIds],
  action: ids.actionIds,
});

/** Deletes every key named above; returns how many. `adminTurnIds`: the admins' turns whose messages name them. */
export async function removePersonKeys(redis: Redis, ids: PersonOwnedIds, adminTurnIds: readonly string[] = []): Promise<number> {
  return removeKeysOfOwners(redis, personKeyOwners(ids, adminTurnIds), { quotingOrganisations: [ids.orgId] });
}
