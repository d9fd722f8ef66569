/**
 * A stored document whose first stage never reached the queue would stay PENDING until the
 * deadline fails it (INGEST_TIMEOUT_MS, minutes): the upload or re-index stored the row, then the
 * enqueue failed — a Redis Cluster failover, a Redis restart — and the client got
 * QUEUE_UNAVAILABLE or gave up waiting. This sweep queues the `ingest-extract` job of every
 * document PENDING for a while whose job is not in the queue. The job id is the run's
 * (document, generation), so queueing it again can never start a run twice. Spans organisations
 * like the deadline sweep: it reads ids only. A document whose uploader is gone has nobody to tell
 * and is left to the deadline.
 */
import { listLongPendingDocuments } from "../../db/queries/document-lifecycle";
import { ingestStageJobId } from "../../queues/job-ids";
import type { WorkerDeps } from "../deps";

/** Older than this, a PENDING document whose job is missing is not one whose upload is still queueing it. */
export const UNQUEUED_AFTER_MS = 20_000;
/** A burst of lost enqueues is worked off over a few sweeps, never in one long job. */
const PER_SWEEP = 200;

export async function requeueUnqueuedDocuments(deps: Pick<WorkerDeps, "db" | "producer">, olderThanMs = UNQUEUED_AFTER_MS): Promise<number> {
  const queue = deps.producer.queue("ingest-extract");
  let requeued = 0;
  for (const document of await listLongPendingDocuments(deps.db, olderThanMs, PER_SWEEP)) {
    const run = { documentId: document.id, generation: document.ingest_generation };
    if ((await queue.getJobState(ingestStageJobId("ingest-extract", run))) !== "unknown") continue;
    if (!document.uploaded_by) continue;
    await deps.producer.enqueueIngestStage("ingest-extract", { orgId: document.org_id, userId: document.uploaded_by, ...run });
    requeued++;
  }
  return requeued;
}
