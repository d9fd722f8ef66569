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

/**
 * Codes of FAILED documents whose cause is ours, not the file's: the embedding service, the
 * deadline, a bug. The same bytes pushed again from their source are indexed again; a file that
 * cannot be read (the extraction codes) would only fail the same way.
 */
export const FAILURES_OF_OURS = ["EMBEDDING_FAILED", "INGEST_TIMEOUT", "INGEST_FAILED"] as const;
