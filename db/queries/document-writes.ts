/**
 * A document's changes an actor asks for, inside the transaction of the command that records its
 * audit event (commands/document-changes.ts). The ingestion pipeline's own writes are
 * document-lifecycle.ts's. Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import { type DocumentAccess, type DocumentRow, findDocument, SUMMARY_COLUMNS } from "./documents";

/** Chunks, drafts and the stored file go with the row (ON DELETE CASCADE); courses detach. */
export async function deleteDocument(db: Knex, orgId: string, documentId: string): Promise<boolean> {
  return (await db("documents").where({ id: documentId, org_id: orgId }).delete()) > 0;
}

/** Changes who may read a document (only the keys given); undefined when it is not in the org. */
export async function updateDocumentAccess(db: Knex, orgId: string, documentId: string, access: Partial<DocumentAccess>): Promise<DocumentRow | undefined> {
  const [row] = await db("documents")
    .where({ id: documentId, org_id: orgId })
    .update({ ...access, updated_at: db.fn.now() })
    .returning(SUMMARY_COLUMNS);
  return row as DocumentRow | undefined;
}

/**
 * Gives a document another external id (its file was renamed or moved at the source), keeping
 * its chunks and vectors. Undefined when the org has no document of `from`; a `to` another
 * document holds fails on the org's unique external id (23505).
 */
export async function renameSourcedDocument(db: Knex, orgId: string, from: string, to: string): Promise<DocumentRow | undefined> {
  const [row] = (await db("documents")
    .where({ org_id: orgId, external_id: from })
    .update({ external_id: to, updated_at: db.fn.now() })
    .returning("id")) as Array<{ id: string }>;
  return row ? findDocument(db, orgId, row.id) : undefined;
}
