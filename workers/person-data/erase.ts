/**
 * The `erase` job: one person's erasure, one step after another, each idempotent and its counts
 * kept in the record (`person_erasures`) as it goes, like an organisation's deletion:
 *
 * 1. `jobs` — their queued jobs are removed and their running ones (a streaming answer) given
 *    up to ACTIVE_JOBS_WAIT_MS to end (the account was locked out when the erasure was asked for),
 *    then their finished ones go too, while their sessions still say which summaries were theirs;
 * 2. `redis-keys` — turn logs and checkpoints, latest turns, action logs, keys carrying their id,
 *    the organisation's cached content-gap reports (queues/person-purge.ts), read from their ids
 *    while the rows still exist;
 * 3. `rows` — chats, feedback, vectors, identity links, tokens, exports… in batches; usage rows
 *    unlinked; audit rows naming them scrubbed (db/queries/person-erasure.ts); their id, email and
 *    name replaced in admins' assistant sessions (db/queries/person-erasure-admin-chats.ts);
 * 4. `leftovers` — the final sweep: steps 1–3 again for whatever ended or appeared meanwhile (a
 *    turn in flight when the lock fell), then the jobs that still name their id;
 * 5. `anonymise` — their row is anonymised, `person.erased` audited, the record closed.
 *
 * A retried or redelivered attempt (the worker died midway) starts again at the recorded step;
 * what earlier attempts removed is already counted, so the totals are the same.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  addErased,
  completePersonErasure,
  type ErasureOfPerson,
  failPersonErasure,
  findPersonErasure,
  markErasureStep,
  personOwnedIds,
} from "../../db/queries/person-erasure";
import { adminTurnsNamingPerson, scrubAdminChats } from "../../db/queries/person-erasure-admin-chats";
import { erasePersonRowsInBatches } from "../../db/queries/person-erasure-rows";
import {
  activeJobsOfPerson,
  type PersonOwnedIds,
  removeFinishedJobsOfPerson,
  removeJobEventsOfPerson,
  removePersonKeys,
  removeQueuedJobsOfPerson,
} from "../../queues/person-purge";
import type { WorkerDeps } from "../deps";
import { storedFailureOf } from "../stored-failure";
import type { JobContext } from "../registry";

export const ERASE_STEPS = ["jobs", "redis-keys", "rows", "leftovers", "anonymise"] as const;
type Step = (typeof ERASE_STEPS)[number];

/** How long the erasure lets the person's running jobs end before it goes on anyway. */
const ACTIVE_JOBS_WAIT_MS = 60_000;

type Progress = (detail: object) => Promise<void>;

/** Removes the person's queued and finished jobs, then the queue events naming them or those jobs (removing one is an event too). */
async function purgeJobs(deps: WorkerDeps, erasure: ErasureOfPerson, ids: PersonOwnedIds): Promise<void> {
  const removedIds: string[] = [];
  const jobs = (await removeQueuedJobsOfPerson(deps.producer, ids, removedIds)) + (await removeFinishedJobsOfPerson(deps.producer, ids, removedIds));
  await addErased(deps.db, erasure.id, { jobs, job_events: await removeJobEventsOfPerson(deps.redis, deps.producer, ids, removedIds) });
}

/** Their keys, read from their ids while their rows still exist, and the keys of admins' turns whose messages name them. */
async function purgeKeys(deps: WorkerDeps, erasure: ErasureOfPerson): Promise<void> {
  const ids = await personOwnedIds(deps.db, erasure.orgId, erasure.userId);
  const adminTurns = await adminTurnsNamingPerson(deps.db, erasure, deps.config.dataLifecycle.PERSON_ERASE_BATCH_ROWS);
  await addErased(deps.db, erasure.id, { redis_keys: await removePersonKeys(deps.redis, ids, adminTurns) });
}

/** Removes their queued jobs, lets their running ones (a streaming answer) end, then removes what those left. */
async function settleJobs(deps: WorkerDeps, erasure: ErasureOfPerson, progress: Progress): Promise<void> {
  const ids = await personOwnedIds(deps.db, erasure.orgId, erasure.userId);
  await addErased(deps.db, erasure.id, { jobs: await removeQueuedJobsOfPerson(deps.producer, ids) });
  const deadline = Date.now() + ACTIVE_JOBS_WAIT_MS;
  for (let active = await activeJobsOfPerson(deps.producer, ids); active > 0 && Date.now() < deadline; ) {
    await progress({ waiting_for_running_jobs: active });
    await sleep(250);
    active = await activeJobsOfPerson(deps.producer, ids);
  }
  // What the running jobs queued (a summary) and what they and the earlier ones left finished.
  await purgeJobs(deps, erasure, ids);
}

/** Their rows, then their mentions in admins' assistant sessions. */
async function eraseRows(deps: WorkerDeps, erasure: ErasureOfPerson, progress: Progress): Promise<void> {
  const onBatch = (kind: string, count: number) => progress({ kind, batch: count });
  await erasePersonRowsInBatches(deps.db, erasure, deps.config.dataLifecycle.PERSON_ERASE_BATCH_ROWS, onBatch);
  await scrubAdminChats(deps.db, erasure, deps.config.dataLifecycle.PERSON_ERASE_BATCH_ROWS, onBatch);
}

const STEPS: Record<Step, (deps: WorkerDeps, erasure: ErasureOfPerson, progress: Progress) => Promise<void>> = {
  jobs: settleJobs,
  "redis-keys": purgeKeys,
  rows: eraseRows,
  leftovers: async (deps, erasure, progress) => {
    // The final sweep: whatever was written after the steps above (a turn already in flight when the
    // lock fell, an admin's turn about them) goes the same way; every step finds only what is still there.
    await settleJobs(deps, erasure, progress);
    await purgeKeys(deps, erasure);
    await eraseRows(deps, erasure, progress);
    // The rows are gone, so only the person's own id (and their exports', all deleted) still names their jobs.
    await purgeJobs(deps, erasure, { orgId: erasure.orgId, userId: erasure.userId, sessionIds: [], turnIds: [], actionIds: [], exportIds: [] });
  },
  anonymise: (deps, erasure) => completePersonErasure(deps.db, erasure),
};

export async function runErasure({ job, deps, log }: JobContext<"person-data">, orgId: string, erasureId: string): Promise<unknown> {
  const record = await findPersonErasure(deps.db, orgId, erasureId);
  if (!record || record.status === "completed") return { skipped: record ? "completed" : "unknown erasure" };
  const erasure: ErasureOfPerson = { id: record.id, orgId, userId: record.user_id, keepLearningRecords: record.keep_learning_records };
  const announce = (status: "running" | "completed" | "failed", step?: string) =>
    record.requested_by && deps.userEvents.emit(record.requested_by, "person_data", { kind: "erasure", id: erasure.id, status, step });
  const resumeAt = Math.max(0, ERASE_STEPS.indexOf(record.step as Step));
  if (resumeAt > 0) log.info({ erasureId, step: record.step }, "person erasure resumes");
  for (const step of ERASE_STEPS.slice(resumeAt)) {
    await markErasureStep(deps.db, erasure.id, step);
    const progress = async (detail: object) => job.updateProgress({ step, ...detail });
    await progress({});
    announce("running", step);
    await STEPS[step](deps, erasure, progress);
  }
  const done = await findPersonErasure(deps.db, orgId, erasureId);
  announce("completed");
  log.info({ erasureId, removed: done?.removed }, "person erased");
  return { removed: done?.removed ?? {} };
}

/** The last attempt failed: the record says so, and the admin who asked hears it; asking again queues a new run that resumes at its step. */
export async function failedErasure({ deps }: JobContext<"person-data">, orgId: string, erasureId: string, error: unknown): Promise<void> {
  await failPersonErasure(deps.db, erasureId, storedFailureOf(error));
  const record = await findPersonErasure(deps.db, orgId, erasureId);
  if (record?.requested_by)
    deps.userEvents.emit(record.requested_by, "person_data", { kind: "erasure", id: erasureId, status: "failed", step: record.step ?? undefined });
}
