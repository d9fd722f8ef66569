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
  "tutor-classify": base,
  "tutor-retrieve": base,
  "tutor-generate": base,
  // Summaries are a nicety: low priority, few attempts, never on a turn's critical path.
  "chat-summarise": { ...base, attempts: 2, priority: 10 },
  "ingest-extract": { ...base, backoff: { type: "exponential", delay: 2_000 } },
  "ingest-chunk": { ...base, backoff: { type: "exponential", delay: 2_000 } },
  "ingest-embed": { ...base, attempts: 5, backoff: { type: "exponential", delay: 2_000 } },
};
