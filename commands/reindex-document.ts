/**
 * Re-indexing a stored document: a new ingestion generation (which supersedes whatever of the
 * old one is still in flight), then its extract stage queued. Undefined when the document is
 * gone. The caller has checked that the document has an uploaded file to read.
 */
import { startReindex } from "../db/queries/document-lifecycle";
import type { DocumentRow } from "../db/queries/documents";
import type { CommandDeps } from "./deps";
import { queueIngestion } from "./queue-ingestion";

export async function reindexDocument(deps: CommandDeps, orgId: string, documentId: string, userId: string): Promise<DocumentRow | undefined> {
  const document = await startReindex(deps.db, orgId, documentId);
  if (document) await queueIngestion(deps, document, userId);
  return document;
}
