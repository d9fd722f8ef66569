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
import { addRemoved, deleteOrgRowsInBatches, findOrgDeletion, orgOwnedIds, removeOrganisationRow } from "../../db/queries/org-deletion";
import { dropVectorIndexesOfOrg } from "../../db/queries/org-vector-indexes";
import { type OperationSpec, StepRunner } from "../../operations/step-runner";
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

/** The deletion as the step runner (operations/step-runner.ts) runs it; the organisation is the job's. */
function orgDeletion(deps: WorkerDeps, orgId: string): OperationSpec<Step, Deletion> {
  return {
    name: "organisation deletion",
    table: "org_deletions",
    steps: ORG_DELETE_STEPS,
    async load(db, id) {
      const record = await findOrgDeletion(db, id);
      return record && { record, subject: { id, orgId } };
    },
    run: {
      "queued-jobs": async ({ subject: deletion, progress, count }) => {
        await count({ jobs: await removeQueuedJobsOf(deps.producer, deletion.orgId) });
        const deadline = Date.now() + ACTIVE_JOBS_WAIT_MS;
        for (let active = await activeJobsOf(deps.producer, deletion.orgId); active > 0 && Date.now() < deadline; ) {
          await progress({ waiting_for_running_jobs: active });
          await sleep(250);
          active = await activeJobsOf(deps.producer, deletion.orgId);
        }
      },
      "vector-indexes": ({ subject }) => dropIndexes(deps, subject),
      "redis-keys": ({ subject }) => purgeKeys(deps, subject),
      rows: ({ subject, progress }) =>
        deleteOrgRowsInBatches(deps.db, subject, deps.config.dataLifecycle.ORG_DELETE_BATCH_ROWS, (table, removed) => progress({ table, batch: removed })),
      leftovers: async ({ subject: deletion, count }) => {
        await count({ jobs: (await removeQueuedJobsOf(deps.producer, deletion.orgId)) + (await removeFinishedJobsOf(deps.producer, deletion.orgId)) });
        await dropIndexes(deps, deletion);
        await purgeKeys(deps, deletion);
      },
      organization: async ({ subject }) => {
        await removeOrganisationRow(deps.db, subject);
      },
    },
  };
}

export const orgDeleteHandler = defineHandler({
  queue: "org-delete",
  async perform({ job, data, deps, log }) {
    const ran = await new StepRunner(orgDeletion(deps, data.orgId)).run(
      deps,
      { updateProgress: (progress) => job.updateProgress(progress), log },
      data.deletionId,
    );
    if (ran.outcome === "skipped") return { skipped: ran.reason === "completed" ? "completed" : "unknown deletion" };
    log.info({ deletionId: data.deletionId, orgId: data.orgId, removed: ran.record.counts }, "organisation deleted");
    return { removed: ran.record.counts };
  },
  async onFailed({ data, deps }, error, { final }) {
    if (final) await new StepRunner(orgDeletion(deps, data.orgId)).failed(deps, data.deletionId, storedFailureOf(error));
  },
});
