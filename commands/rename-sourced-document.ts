/**
 * An integration key gives its source's document a new external id (the file was renamed or
 * moved), keeping its chunks and vectors, with its `document.renamed` audit event, in one
 * transaction. An id another document holds is refused (EXTERNAL_ID_TAKEN).
 */
import { type AuditActor, recordAudit } from "../db/queries/audit-log";
import { findDocumentByExternalId } from "../db/queries/document-sources";
import { renameSourcedDocument } from "../db/queries/document-writes";
import type { DocumentRow } from "../db/queries/documents";
import { refusingDuplicates } from "../db/queries/unique-violation";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function renameDocumentSource(
  deps: Pick<CommandDeps, "db">,
  input: { orgId: string; from: string; to: string; actor: AuditActor },
): Promise<DocumentRow> {
  const taken = () => new Refusal("conflict", "EXTERNAL_ID_TAKEN", `Another document already has the external_id "${input.to}"`);
  return refusingDuplicates(taken, () =>
    withTransaction(deps, async (trx) => {
      const holder = input.to === input.from ? undefined : await findDocumentByExternalId(trx, input.orgId, input.to);
      if (holder) throw taken();
      const document = await renameSourcedDocument(trx, input.orgId, input.from, input.to);
      if (!document) throw Refusal.notFound("Document");
      await recordAudit(trx, {
        name: "document.renamed",
        orgId: input.orgId,
        actor: input.actor,
        target: { type: "document", id: document.id },
        before: { external_id: input.from },
        after: { external_id: input.to },
      });
      return document;
    }),
  );
}
