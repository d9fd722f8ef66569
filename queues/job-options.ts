/**
 * Default job options per queue: retries with exponential backoff, bounded history of
 * completed jobs, failed jobs kept for inspection in Bull Board.
 */
import type { JobsOptions } from "bullmq";
import type { QueueName } from "./names";

const base: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: { age: 24 * 3600, count: 1_000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 10_000 },
};

export const JOB_OPTIONS: Record<QueueName, JobsOptions> = {
  // One plain job per turn: BullMQ's wait list is FIFO, so turns are served in the order they came.
  "tutor-generate": base,
  // Summaries are a nicety: low priority, few attempts, never on a turn's critical path.
  "chat-summarise": { ...base, attempts: 2, priority: 10 },
  // A turn's rounds may already have streamed text: retry once, announcing the restart.
  "admin-plan": { ...base, attempts: 2 },
  // Items are idempotent, so a retry simply carries on from the first undone item.
  "admin-actions": { ...base, attempts: 5, backoff: { type: "exponential", delay: 2_000 } },
  "ingest-extract": { ...base, backoff: { type: "exponential", delay: 2_000 } },
  "ingest-chunk": { ...base, backoff: { type: "exponential", delay: 2_000 } },
  "ingest-embed": { ...base, attempts: 5, backoff: { type: "exponential", delay: 2_000 } },
  // A sweep that fails is simply run again by its scheduler; keep a short history of both outcomes.
  maintenance: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 1_000 } },
  // A failed report is asked for again by the next page load; one retry covers a blip.
  // Every step is idempotent and the counts are kept per batch, so a retry (or a stalled job taken over) carries on.
  // A finished run is removed at once: its record in org_deletions is what the operator reads, and the job's data names the org.
  "org-delete": { attempts: 5, backoff: { type: "exponential", delay: 2_000 }, removeOnComplete: true, removeOnFail: { age: 14 * 24 * 3600, count: 1_000 } },
  // The cursor and counts move with each batch, so a retry (or a stalled job taken over) carries on where it stopped.
  "catalog-import": {
    attempts: 5,
    backoff: { type: "exponential", delay: 2_000 },
    removeOnComplete: { age: 24 * 3600, count: 1_000 },
    removeOnFail: { age: 14 * 24 * 3600, count: 1_000 },
  },
  // Exports and erasures resume from their records; a finished job is removed at once (the record is what the API reads).
  "person-data": { attempts: 5, backoff: { type: "exponential", delay: 2_000 }, removeOnComplete: true, removeOnFail: { age: 14 * 24 * 3600, count: 1_000 } },
  // A file's reading fails for good on a file problem (UnrecoverableError); a blip of ours gets two more tries.
  "chat-attachment": { ...base, backoff: { type: "exponential", delay: 2_000 } },
  "content-gaps": { attempts: 2, backoff: { type: "exponential", delay: 1_000 }, removeOnComplete: { count: 100 }, removeOnFail: { count: 1_000 } },
};
