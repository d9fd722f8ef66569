/**
 * Storing an uploaded document and queueing its ingestion. The bytes are deduplicated by SHA-256
 * within the org: the same bytes twice give the existing document (a course or restrictions sent
 * with the duplicate apply to it) and nothing is queued. New bytes are stored with the document
 * row in one transaction, within the organisation's storage quota (`409 STORAGE_QUOTA_EXCEEDED`
 * past it, nothing stored), then the extract stage is queued. The caller has already checked the
 * file's type and the course and restrictions it names. A new document records `document.uploaded`
 * in its transaction; a duplicate stores nothing new and records nothing.
 */
import { createHash } from "node:crypto";
import { type AuditActor, type AuditEvent, recordAudit } from "../db/queries/audit-log";
import { createUploadedDocument, setCourseSourceDocument, StorageQuotaExceeded } from "../db/queries/document-lifecycle";
import { updateDocumentAccess } from "../db/queries/document-writes";
import { findDocumentByHash, type DocumentAccess, type DocumentRow } from "../db/queries/documents";
import { MIME_TYPES, type DocumentFormat } from "../lib/document-formats";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";
import { queueIngestion } from "./queue-ingestion";
import { Refusal } from "../lib/refusal";

export interface DocumentUpload {
  filename: string;
  format: DocumentFormat;
  bytes: Buffer;
  /** A title the admin gave; else the file name without its extension. */
  title: string | undefined;
  courseId: string | undefined;
  /** The restrictions given (keys left out stay as they are). */
  access: Partial<DocumentAccess>;
  /** The organisation's storage quota when it sets none of its own (ORG_STORAGE_QUOTA_BYTES). */
  defaultQuotaBytes: number;
}

export interface UploadResult {
  document: DocumentRow;
  duplicate: boolean;
}

export async function uploadDocument(deps: CommandDeps, uploader: { orgId: string; userId: string }, upload: DocumentUpload): Promise<UploadResult> {
  const { orgId } = uploader;
  const contentHash = createHash("sha256").update(upload.bytes).digest("hex");
  const existing = await findDocumentByHash(deps.db, orgId, contentHash);
  if (existing) {
    if (upload.courseId) await setCourseSourceDocument(deps.db, orgId, upload.courseId, existing.id);
    // Restrictions sent with a duplicate apply to the existing document rather than being lost.
    if (Object.keys(upload.access).length > 0)
      return { document: (await updateDocumentAccess(deps.db, orgId, existing.id, upload.access)) ?? existing, duplicate: true };
    return { document: existing, duplicate: true };
  }

  let document: DocumentRow;
  try {
    document = await withTransaction(deps, async (trx) => {
      const created = await createUploadedDocument(trx, {
        orgId,
        uploadedBy: uploader.userId,
        title: upload.title ?? upload.filename.replace(/\.[^.]+$/, ""),
        filename: upload.filename,
        mimeType: MIME_TYPES[upload.format],
        bytes: upload.bytes,
        contentHash,
        // Extraction replaces a file-name title with the document's own, never one the admin gave.
        metadata: { format: upload.format, title_source: upload.title ? "admin" : "filename" },
        access: upload.access,
        courseId: upload.courseId,
        defaultQuotaBytes: upload.defaultQuotaBytes,
      });
      await recordAudit(trx, uploadedEvent(created, { type: "person", id: uploader.userId }));
      return created;
    });
  } catch (error) {
    if (error instanceof StorageQuotaExceeded) throw quotaRefusal(error);
    // Two identical uploads raced; the other one won. Answer with its document.
    if ((error as { code?: string }).code === "23505") {
      const winner = await findDocumentByHash(deps.db, orgId, contentHash);
      if (winner) return { document: winner, duplicate: true };
    }
    throw error;
  }
  await queueIngestion(deps, document, uploader.userId);
  return { document, duplicate: false };
}

/** `document.uploaded`: a new document's row and file are stored (a duplicate's bytes store nothing and record nothing). */
export function uploadedEvent(document: DocumentRow, actor: AuditActor): AuditEvent {
  return {
    name: "document.uploaded",
    orgId: document.org_id,
    actor,
    target: { type: "document", id: document.id },
    after: { title: document.title, filename: document.filename, size_bytes: document.size_bytes, external_id: document.external_id },
  };
}

/** `409 STORAGE_QUOTA_EXCEEDED`: what is used, the quota, and what the file would need. */
export function quotaRefusal(error: StorageQuotaExceeded): Refusal {
  const { usedBytes, quotaBytes } = error.usage;
  const free = Math.max(0, quotaBytes - usedBytes);
  return new Refusal(
    "conflict",
    "STORAGE_QUOTA_EXCEEDED",
    `Your organisation's document storage is full: ${mb(usedBytes)} of ${mb(quotaBytes)} used, ${mb(free)} free, and this file needs ${mb(error.uploadBytes)}. Delete documents you no longer need, or ask for a larger quota.`,
    { used_bytes: usedBytes, quota_bytes: quotaBytes, file_bytes: error.uploadBytes },
  );
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
