/**
 * Queues the first ingestion stage (`ingest-extract`) for a document's current generation. The
 * bytes are already safe in Postgres: a queue that refuses leaves the document PENDING, and the
 * command fails with QUEUE_UNAVAILABLE (naming the document); the maintenance sweep queues the
 * run once the queue is back (workers/maintenance/unqueued-documents.ts), or a re-index does.
 */
import type { DocumentRow } from "../db/queries/documents";
import type { CommandDeps } from "./deps";
import { Refusal } from "../lib/refusal";

export async function queueIngestion(deps: CommandDeps, document: Pick<DocumentRow, "id" | "org_id" | "ingest_generation">, userId: string): Promise<void> {
  try {
    await deps.producer.enqueueIngestStage("ingest-extract", {
      orgId: document.org_id,
      documentId: document.id,
      userId,
      generation: document.ingest_generation,
    });
  } catch (error) {
    deps.log.error({ err: error, documentId: document.id }, "could not queue ingestion");
    throw new Refusal(
      "unavailable",
      "QUEUE_UNAVAILABLE",
      "The document was stored but indexing could not be queued yet; it is queued automatically within a minute once the queue is back " +
        "(or re-index it with POST /api/v1/documents/:id/reindex)",
      { document_id: document.id },
      { cause: error },
    );
  }
}
