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
import { addErased, completePersonErasure, type ErasureOfPerson, findPersonErasure, personOwnedIds } from "../../db/queries/person-erasure";
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
import { type OperationSpec, StepRunner } from "../../operations/step-runner";
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

/** The erasure as the step runner (operations/step-runner.ts) runs it, for the organisation of the job. */
function personErasure(deps: WorkerDeps, orgId: string): OperationSpec<Step, ErasureOfPerson & { requestedBy: string | null }> {
  return {
    name: "person erasure",
    table: "person_erasures",
    steps: ERASE_STEPS,
    async load(db, id) {
      const record = await findPersonErasure(db, orgId, id);
      if (!record) return undefined;
      const subject = { id, orgId, userId: record.user_id, keepLearningRecords: record.keep_learning_records, requestedBy: record.requested_by };
      return { record, subject };
    },
    run: {
      jobs: ({ subject, progress }) => settleJobs(deps, subject, progress),
      "redis-keys": ({ subject }) => purgeKeys(deps, subject),
      rows: ({ subject, progress }) => eraseRows(deps, subject, progress),
      leftovers: async ({ subject: erasure, progress }) => {
        // The final sweep: whatever was written after the steps above (a turn already in flight when the
        // lock fell, an admin's turn about them) goes the same way; every step finds only what is still there.
        await settleJobs(deps, erasure, progress);
        await purgeKeys(deps, erasure);
        await eraseRows(deps, erasure, progress);
        // The rows are gone, so only the person's own id (and their exports', all deleted) still names their jobs.
        await purgeJobs(deps, erasure, { orgId: erasure.orgId, userId: erasure.userId, sessionIds: [], turnIds: [], actionIds: [], exportIds: [] });
      },
      anonymise: ({ subject }) => completePersonErasure(deps.db, subject),
    },
    announce(subject, _record, { status, step }) {
      if (subject.requestedBy) deps.userEvents.emit(subject.requestedBy, "person_data", { kind: "erasure", id: subject.id, status, step });
    },
  };
}

export async function runErasure({ job, deps, log }: JobContext<"person-data">, orgId: string, erasureId: string): Promise<unknown> {
  const ran = await new StepRunner(personErasure(deps, orgId)).run(deps, { updateProgress: (progress) => job.updateProgress(progress), log }, erasureId);
  if (ran.outcome === "skipped") return { skipped: ran.reason === "completed" ? "completed" : "unknown erasure" };
  log.info({ erasureId, removed: ran.record.counts }, "person erased");
  return { removed: ran.record.counts };
}

/** The last attempt failed: the record says so, and the admin who asked hears it; asking again queues a new run that resumes at its step. */
export async function failedErasure({ deps }: JobContext<"person-data">, orgId: string, erasureId: string, error: unknown): Promise<void> {
  await new StepRunner(personErasure(deps, orgId)).failed(deps, erasureId, storedFailureOf(error));
}
