/** How often each maintenance sweep runs, from the configuration. */
import type { Config } from "../../lib/config";
import type { MaintenanceTask } from "../../queues/payloads";

/**
 * The stuck-document deadline (INGEST_TIMEOUT_MS) is minutes long, but the same sweep queues the
 * runs whose enqueue was lost (unqueued-documents.ts), which should not wait a minute more.
 */
const DOCUMENT_SWEEP_EVERY_MS = 15_000;

/**
 * An organisation that crossed RETRIEVAL_EXACT_MAX_CHUNKS is searched exactly (correct, slower)
 * until its index is built, and new chunks of an indexed one wait in its tail (an exact scan in
 * every search) until folded: twenty seconds keeps both short.
 */
const VECTOR_INDEX_SWEEP_EVERY_MS = 20_000;

/** Old finished imports are pruned after days: an hour late costs nothing. */
const CATALOG_IMPORT_SWEEP_EVERY_MS = 60 * 60_000;

export function maintenanceSchedule(config: Pick<Config, "workers" | "dataLifecycle" | "contentGaps">): Record<MaintenanceTask, number> {
  return {
    "lost-turns": config.workers.TURN_SWEEP_INTERVAL_MS,
    "stuck-documents": DOCUMENT_SWEEP_EVERY_MS,
    "question-vectors": config.contentGaps.QUESTION_VECTOR_SWEEP_INTERVAL_MS,
    "vector-indexes": VECTOR_INDEX_SWEEP_EVERY_MS,
    "chat-retention": config.dataLifecycle.RETENTION_SWEEP_INTERVAL_MS,
    "catalog-imports": CATALOG_IMPORT_SWEEP_EVERY_MS,
  };
}
