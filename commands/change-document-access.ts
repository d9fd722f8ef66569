/**
 * An admin changes who may read a document (only the keys given; null lifts a restriction), with
 * its `document.access_changed` audit event, in one transaction. The caller has checked that a
 * restricting course exists.
 */
import { recordAudit } from "../db/queries/audit-log";
import { updateDocumentAccess } from "../db/queries/document-writes";
import { type DocumentAccess, type DocumentRow, findDocument } from "../db/queries/documents";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function changeDocumentAccess(
  deps: Pick<CommandDeps, "db">,
  input: { orgId: string; documentId: string; actorId: string; access: Partial<DocumentAccess> },
): Promise<DocumentRow> {
  return withTransaction(deps, async (trx) => {
    const before = await findDocument(trx, input.orgId, input.documentId);
    const document = before && (await updateDocumentAccess(trx, input.orgId, input.documentId, input.access));
    if (!before || !document) throw Refusal.notFound("Document");
    const keys = Object.keys(input.access) as Array<keyof DocumentAccess>;
    await recordAudit(trx, {
      name: "document.access_changed",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "document", id: input.documentId },
      before: Object.fromEntries(keys.map((key) => [key, before[key]])),
      after: Object.fromEntries(keys.map((key) => [key, document[key]])),
    });
    return document;
  });
}
