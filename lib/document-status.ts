/**
 * Where a document is in indexing. One list, shared by the API's filter, the query modules,
 * the workers' status moves and the events clients hear, so a new status is added in one place.
 * (The migration that created the column keeps its own copy: migrations are history.)
 */

/** In pipeline order; COMPLETED and FAILED are final. */
export const DOCUMENT_STATUSES = ["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED", "FAILED"] as const;

export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** A document in one of these is still being indexed: the deadline sweep watches them. */
export const IN_PROGRESS_STATUSES: readonly DocumentStatus[] = ["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING"];

/** The happy path, in order. */
export const STATUS_PROGRESSION: readonly DocumentStatus[] = [...IN_PROGRESS_STATUSES, "COMPLETED"];
