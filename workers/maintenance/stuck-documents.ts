/**
 * The per-document deadline, enforced even when no stage is running: a document whose jobs
 * were lost (a worker died twice, the upload could not be queued) would otherwise stay in a
 * non-final status forever. This sweep spans organisations on purpose — it is maintenance, it
 * reads no content, and each row it changes is announced only to that document's uploader.
 * It runs as the `stuck-documents` task of the `maintenance` queue (see sweep.handler.ts).
 */
import type { Db } from "../../db/knex";
import { failOverdueDocuments } from "../../db/queries/document-lifecycle";
import { IN_PROGRESS_STATUSES } from "../../lib/document-status";
import type { UserEventPublisher } from "../../queues/events/user-events";

export async function failStuckDocuments(db: Db, userEvents: UserEventPublisher, timeoutMs: number): Promise<number> {
  const reason = `Indexing did not finish within ${Math.round(timeoutMs / 1000)} s; re-index the document to try again.`;
  const rows = await failOverdueDocuments(db, IN_PROGRESS_STATUSES, timeoutMs, { error: reason, error_code: "INGEST_TIMEOUT" });
  for (const row of rows) {
    if (row.uploaded_by)
      userEvents.emit(row.uploaded_by, "document_status", { documentId: row.id, status: "FAILED", error: reason, error_code: "INGEST_TIMEOUT" });
  }
  return rows.length;
}
