/**
 * The per-document deadline, enforced even when no stage is running: a document whose jobs
 * were lost (a worker died twice, the upload could not be queued) would otherwise stay in a
 * non-final status forever. This sweep spans organisations on purpose — it is maintenance, it
 * reads no content, and each row it changes is announced only to that document's uploader.
 * It runs as the `stuck-documents` task of the `maintenance` queue (see sweep.handler.ts).
 */
import type { Db } from "../../db/knex";
import type { UserEventPublisher } from "../../queues/events/user-events";

export async function failStuckDocuments(db: Db, userEvents: UserEventPublisher, timeoutMs: number): Promise<number> {
  const reason = `Indexing did not finish within ${Math.round(timeoutMs / 1000)} s; re-index the document to try again.`;
  const rows = (await db("documents")
    .whereIn("status", ["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING"])
    .andWhereRaw("coalesce(processing_started_at, created_at) < now() - (? * interval '1 millisecond')", [timeoutMs])
    .update({ status: "FAILED", error: reason, error_code: "INGEST_TIMEOUT", updated_at: db.fn.now() })
    .returning(["id", "uploaded_by"])) as Array<{ id: string; uploaded_by: string | null }>;
  for (const row of rows) {
    if (row.uploaded_by) userEvents.emit(row.uploaded_by, "document_status", { documentId: row.id, status: "FAILED", error: reason, error_code: "INGEST_TIMEOUT" });
  }
  return rows.length;
}
