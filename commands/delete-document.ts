/**
 * Deleting a document — by an admin in the console or API, or by an integration key whose source
 * dropped the file — with its `document.deleted` audit event, in one transaction. A course's
 * source document is refused (DOCUMENT_IN_USE) unless `force` detaches it.
 */
import { type AuditActor, recordAudit } from "../db/queries/audit-log";
import { deleteDocument } from "../db/queries/document-writes";
import { coursesUsingDocument, findDocument } from "../db/queries/documents";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function deleteOrgDocument(
  deps: Pick<CommandDeps, "db">,
  input: { orgId: string; documentId: string; actor: AuditActor; force: boolean },
): Promise<void> {
  await withTransaction(deps, async (trx) => {
    const document = await findDocument(trx, input.orgId, input.documentId);
    if (!document) throw Refusal.notFound("Document");
    const courses = await coursesUsingDocument(trx, input.orgId, input.documentId);
    if (courses.length > 0 && !input.force) {
      throw new Refusal(
        "conflict",
        "DOCUMENT_IN_USE",
        `This document is the source of ${courses.map((c) => `"${c.title}"`).join(", ")}; delete with ?force=true to detach it`,
        { courses },
      );
    }
    // Deleted by another request since the read: that one recorded the event.
    if (!(await deleteDocument(trx, input.orgId, input.documentId))) throw Refusal.notFound("Document");
    await recordAudit(trx, {
      name: "document.deleted",
      orgId: input.orgId,
      actor: input.actor,
      target: { type: "document", id: input.documentId },
      before: { title: document.title, filename: document.filename, external_id: document.external_id },
      ...(courses.length > 0 ? { details: { detached_courses: courses.map((c) => c.id) } } : {}),
    });
  });
}
