/**
 * Every queue the product runs. Each pipeline stage is its own queue so ops can watch,
 * scale and retry each one separately (Bull Board shows them all).
 */
export const QUEUE_NAMES = [
  "tutor-classify",
  "tutor-retrieve",
  "tutor-generate",
  "chat-summarise",
  "admin-plan",
  "admin-actions",
  "ingest-extract",
  "ingest-chunk",
  "ingest-embed",
  // Periodic sweeps (lost turns, stuck documents) run here as BullMQ job schedulers, so ops see them.
  "maintenance",
] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}

/** Prefix of every BullMQ key, so the product can share a Redis with other tenants of it. */
export const QUEUE_PREFIX = "skillnet";
