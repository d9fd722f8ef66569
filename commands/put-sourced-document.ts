/**
 * A document pushed from its source under the caller's `external_id` (PUT
 * /api/v1/integrations/documents/:external_id, and so `npm run sync`):
 *
 * - an unknown id is a new document (`created`), stored and queued like an upload;
 * - the same bytes as the current version change nothing (`unchanged`), unless that version
 *   failed to index for a reason of ours (the embedding service, a deadline): then it is indexed
 *   again (`retried`); a file that could not be read would only fail the same way;
 * - new bytes are a new version (`updated`): stored and indexed as the next generation while the
 *   old chunks and full text stay searchable, then swapped in by the embed stage in one
 *   transaction. A failed new version leaves the old one live, FAILED naming why.
 *
 * Bytes equal to another document of the org (UNIQUE(org_id, content_hash)) are refused with
 * `409 DOCUMENT_DUPLICATE` naming it, and nothing changes: one copy of a text is indexed once, and
 * a PUT never takes over a document another id (or an admin's upload) owns. A created document
 * records `document.uploaded`, a new version `document.version_uploaded`, each in its transaction.
 */
import { createHash } from "node:crypto";
import { type AuditActor, recordAudit } from "../db/queries/audit-log";
import { createUploadedDocument, StorageQuotaExceeded } from "../db/queries/document-lifecycle";
import { findDocumentByExternalId, storeNewVersion } from "../db/queries/document-sources";
import { findDocumentByHash, type DocumentRow } from "../db/queries/documents";
import { MIME_TYPES, type DocumentFormat } from "../lib/document-formats";
import { FAILURES_OF_OURS } from "../lib/document-status";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";
import { queueIngestion } from "./queue-ingestion";
import { reindexDocument } from "./reindex-document";
import { quotaRefusal, uploadedEvent } from "./upload-document";

export type SourcedPutResult = "created" | "updated" | "unchanged" | "retried";

export interface SourcedVersion {
  orgId: string;
  /** Who pushed it (the integration key), named by the audit event. */
  actor: AuditActor;
  /** Whose document it is (documents.uploaded_by) and whose room hears its progress. */
  uploaderId: string;
  externalId: string;
  filename: string;
  format: DocumentFormat;
  bytes: Buffer;
  title: string | undefined;
  defaultQuotaBytes: number;
  /** Asked just before the document is indexed again (new bytes, or a failed version retried); throws to refuse (a rate limit). */
  admitReindex: () => Promise<void>;
}

const CONTENT_HASH_UNIQUE = "documents_org_id_content_hash_unique";
const UNIQUE_VIOLATION = "23505";
const DEADLOCK = "40P01";
const MAX_ATTEMPTS = 3;

const failedOnOurSide = (document: DocumentRow): boolean =>
  document.status === "FAILED" && (FAILURES_OF_OURS as readonly (string | null)[]).includes(document.error_code);

export async function putSourcedDocument(
  deps: CommandDeps,
  version: SourcedVersion,
  attempt = 1,
): Promise<{ document: DocumentRow; result: SourcedPutResult }> {
  const { orgId } = version;
  const contentHash = createHash("sha256").update(version.bytes).digest("hex");
  const current = await findDocumentByExternalId(deps.db, orgId, version.externalId);
  if (current && current.content_hash === contentHash) {
    if (!failedOnOurSide(current)) return { document: current, result: "unchanged" };
    await version.admitReindex();
    const retried = await reindexDocument(deps, orgId, current.id, version.uploaderId);
    return { document: retried ?? current, result: "retried" };
  }
  const holder = await findDocumentByHash(deps.db, orgId, contentHash);
  // A concurrent PUT of this id and these bytes committed between the two reads: nothing is left to do.
  if (holder && holder.external_id === version.externalId) return { document: holder, result: "unchanged" };
  if (holder) throw duplicateRefusal(holder);

  const metadata = { format: version.format, title_source: version.title ? "admin" : "filename" };
  try {
    if (current) {
      await version.admitReindex();
      const stored = await withTransaction(deps, async (trx) => {
        const row = await storeNewVersion(trx, {
          orgId,
          documentId: current.id,
          bytes: version.bytes,
          contentHash,
          filename: version.filename,
          mimeType: MIME_TYPES[version.format],
          metadata,
          title: version.title,
          defaultQuotaBytes: version.defaultQuotaBytes,
        });
        if (row)
          await recordAudit(trx, {
            name: "document.version_uploaded",
            orgId,
            actor: version.actor,
            target: { type: "document", id: row.id },
            before: { content_hash: current.content_hash, filename: current.filename, size_bytes: current.size_bytes },
            after: { content_hash: row.content_hash, filename: row.filename, size_bytes: row.size_bytes },
          });
        return row;
      });
      // Deleted between the two reads: the id is unknown again, so this PUT creates it.
      if (stored) {
        await queueIngestion(deps, stored, version.uploaderId);
        return { document: stored, result: "updated" };
      }
    }
    const created = await withTransaction(deps, async (trx) => {
      const row = await createUploadedDocument(trx, {
        orgId,
        uploadedBy: version.uploaderId,
        title: version.title ?? version.filename.replace(/\.[^.]+$/, ""),
        filename: version.filename,
        mimeType: MIME_TYPES[version.format],
        bytes: version.bytes,
        contentHash,
        metadata,
        access: {},
        externalId: version.externalId,
        defaultQuotaBytes: version.defaultQuotaBytes,
      });
      await recordAudit(trx, uploadedEvent(row, version.actor));
      return row;
    });
    await queueIngestion(deps, created, version.uploaderId);
    return { document: created, result: "created" };
  } catch (error) {
    if (error instanceof StorageQuotaExceeded) throw quotaRefusal(error);
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === CONTENT_HASH_UNIQUE) return sameBytesRace(deps, version, contentHash, error);
    // Another PUT created this id first (this one is a version of that document now), or
    // PostgreSQL chose this transaction to break a deadlock with the document's indexing: again.
    if ((code === UNIQUE_VIOLATION || code === DEADLOCK) && attempt < MAX_ATTEMPTS) return putSourcedDocument(deps, version, attempt + 1);
    throw error;
  }
}

/** Another writer stored these bytes first: under this id (the same PUT twice) nothing is left to do, else they are a duplicate. */
async function sameBytesRace(
  deps: CommandDeps,
  version: SourcedVersion,
  contentHash: string,
  error: unknown,
): Promise<{ document: DocumentRow; result: SourcedPutResult }> {
  const holder = await findDocumentByHash(deps.db, version.orgId, contentHash);
  if (!holder) throw error;
  if (holder.external_id === version.externalId) return { document: holder, result: "unchanged" };
  throw duplicateRefusal(holder);
}

function duplicateRefusal(holder: DocumentRow): Refusal {
  const named = holder.external_id ? `"${holder.external_id}"` : `document ${holder.id} (uploaded, without an external id)`;
  return new Refusal("conflict", "DOCUMENT_DUPLICATE", `These bytes are already the content of ${named}; a text is indexed once per organisation`, {
    duplicate_of: { id: holder.id, external_id: holder.external_id },
  });
}
