/**
 * `org-delete`: removes an organisation and everything it owns, one step after another, each
 * step idempotent and its counts kept in the deletion's record (`org_deletions`) as it goes:
 *
 * 1. `queued-jobs` — its jobs that have not started are removed, and the running ones are given
 *    up to ACTIVE_JOBS_WAIT_MS to end, so nothing writes while its rows go;
 * 2. `vector-indexes` — its HNSW indexes are dropped (searching and batch deletes stop paying for them);
 * 3. `redis-keys` — turn logs and checkpoints, latest turns, action logs, rate limits, caches,
 *    its fair-clock entries (queues/org-purge.ts), read from its ids while the rows still exist;
 * 4. `rows` — the big tables in batches (db/queries/org-deletion.ts);
 * 5. `leftovers` — anything that ended or appeared meanwhile: finished jobs, an index, keys;
 * 6. `organization` — the final `DELETE FROM organizations` cascades the rest and closes the record.
 *
 * A retried or redelivered attempt (the worker died mid-way) starts again at the recorded step;
 * what earlier attempts removed is already counted, so the report's totals are the same.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  addRemoved,
  deleteOrgRowsInBatches,
  failOrgDeletion,
  findOrgDeletion,
  markDeletionStep,
  orgOwnedIds,
  removeOrganisationRow,
} from "../../db/queries/org-deletion";
import { dropVectorIndexesOfOrg } from "../../db/queries/org-vector-indexes";
import { activeJobsOf, removeFinishedJobsOf, removeOwnedKeys, removeQueuedJobsOf } from "../../queues/org-purge";
import type { WorkerDeps } from "../deps";
import { defineHandler } from "../registry";
import { storedFailureOf } from "../stored-failure";

export const ORG_DELETE_STEPS = ["queued-jobs", "vector-indexes", "redis-keys", "rows", "leftovers", "organization"] as const;
type Step = (typeof ORG_DELETE_STEPS)[number];

/** How long the deletion lets the organisation's running jobs (a streaming answer, an embedding batch) end before it goes on anyway. */
const ACTIVE_JOBS_WAIT_MS = 60_000;

interface Deletion {
  id: string;
  orgId: string;
}

async function purgeKeys(deps: WorkerDeps, deletion: Deletion): Promise<void> {
  const ids = await orgOwnedIds(deps.db, deletion.orgId);
  const removed = await removeOwnedKeys(deps.redis, deps.producer, ids);
  await addRemoved(deps.db, deletion.id, { redis_keys: removed.keys, fair_clock_entries: removed.fairClockEntries });
}

async function dropIndexes(deps: WorkerDeps, deletion: Deletion): Promise<void> {
  await addRemoved(deps.db, deletion.id, { vector_indexes: (await dropVectorIndexesOfOrg(deps.db, deletion.orgId)).length });
}

const STEPS: Record<Step, (deps: WorkerDeps, deletion: Deletion, progress: (detail: object) => Promise<void>) => Promise<void>> = {
  "queued-jobs": async (deps, deletion, progress) => {
    await addRemoved(deps.db, deletion.id, { jobs: await removeQueuedJobsOf(deps.producer, deletion.orgId) });
    const deadline = Date.now() + ACTIVE_JOBS_WAIT_MS;
    for (let active = await activeJobsOf(deps.producer, deletion.orgId); active > 0 && Date.now() < deadline; ) {
      await progress({ waiting_for_running_jobs: active });
      await sleep(250);
      active = await activeJobsOf(deps.producer, deletion.orgId);
    }
  },
  "vector-indexes": dropIndexes,
  "redis-keys": purgeKeys,
  rows: (deps, deletion, progress) =>
    deleteOrgRowsInBatches(deps.db, deletion, deps.config.dataLifecycle.ORG_DELETE_BATCH_ROWS, (table, removed) => progress({ table, batch: removed })),
  leftovers: async (deps, deletion) => {
    const jobs = (await removeQueuedJobsOf(deps.producer, deletion.orgId)) + (await removeFinishedJobsOf(deps.producer, deletion.orgId));
    await addRemoved(deps.db, deletion.id, { jobs });
    await dropIndexes(deps, deletion);
    await purgeKeys(deps, deletion);
  },
  organization: async (deps, deletion) => {
    await removeOrganisationRow(deps.db, deletion);
  },
};

export const orgDeleteHandler = defineHandler({
  queue: "org-delete",
  async perform({ job, data, deps, log }) {
    const record = await findOrgDeletion(deps.db, data.deletionId);
    if (!record || record.status === "completed") return { skipped: record ? "completed" : "unknown deletion" };
    const deletion = { id: record.id, orgId: data.orgId };
    const resumeAt = Math.max(0, ORG_DELETE_STEPS.indexOf(record.step as Step));
    if (resumeAt > 0) log.info({ deletionId: deletion.id, step: record.step }, "organisation deletion resumes");
    for (const step of ORG_DELETE_STEPS.slice(resumeAt)) {
      await markDeletionStep(deps.db, deletion.id, step);
      const progress = async (detail: object) => job.updateProgress({ step, ...detail });
      await progress({});
      await STEPS[step](deps, deletion, progress);
    }
    const done = await findOrgDeletion(deps.db, deletion.id);
    log.info({ deletionId: deletion.id, orgId: deletion.orgId, removed: done?.removed }, "organisation deleted");
    return { removed: done?.removed ?? {} };
  },
  async onFailed({ data, deps }, error, { final }) {
    if (final) await failOrgDeletion(deps.db, data.deletionId, storedFailureOf(error));
  },
});
