/**
 * Every queue the product runs (Bull Board shows them all). Ingestion and the admin assistant have
 * a queue per stage, so ops can watch, scale and retry each one separately. A tutor turn is one
 * `tutor-generate` job that reports its stages (workers/tutor/stage-report.ts).
 */
export const QUEUE_NAMES = [
  "tutor-generate",
  "chat-summarise",
  "admin-plan",
  "admin-actions",
  "ingest-extract",
  "ingest-chunk",
  "ingest-embed",
  // Periodic sweeps (lost turns, stuck documents) run here as BullMQ job schedulers, so ops see them.
  "maintenance",
  // The content-gap report, grouped off the HTTP path and cached (queues/content-gap-cache.ts).
  "content-gaps",
  // Deleting an organisation and everything it owns, step by step, one at a time (workers/organisations/).
  "org-delete",
  // Bulk catalog imports of the integration API, applied record by record with a resumable cursor (workers/catalog/).
  "catalog-import",
  // An employee's data: `export` builds their downloadable archive, `erase` removes it (workers/person-data/).
  "person-data",
  // A file an employee attached to a tutor conversation: read (and OCR'd) in the extraction thread, chunked and embedded (workers/attachments/).
  "chat-attachment",
] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}

/** Prefix of every BullMQ key, so the product can share a Redis with other tenants of it. */
export const QUEUE_PREFIX = "skillnet";
