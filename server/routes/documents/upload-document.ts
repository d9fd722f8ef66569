/**
 * Accepting a document: check type by content and name, deduplicate by SHA-256 within the
 * org, store the bytes durably with the document row in one transaction, then queue the
 * first ingestion stage. Same bytes twice → the existing document, nothing queued.
 */
import { createHash } from "node:crypto";
import { ALLOWED_EXTENSIONS, MIME_TYPES, detectFormat } from "../../../lib/document-formats";
import { findCourse } from "../../../db/queries/courses";
import { createUploadedDocument, setCourseSourceDocument } from "../../../db/queries/document-lifecycle";
import { findDocumentByHash, updateDocumentAccess, type DocumentRow } from "../../../db/queries/documents";
import type { Principal } from "../../auth/tokens";
import type { ServerDeps } from "../../deps";
import { HttpError, notFound } from "../../errors";
import { accessGiven, checkAccessCourse } from "./access";
import type { UploadedFile } from "./multipart";
import type { UploadFields } from "./schema";

export interface UploadResult {
  document: DocumentRow;
  duplicate: boolean;
}

export async function acceptUpload(deps: ServerDeps, principal: Principal, file: UploadedFile, fields: UploadFields): Promise<UploadResult> {
  const filename = file.originalname.replaceAll("\u0000", "").slice(0, 255) || "upload";
  const format = await detectFormat(file.buffer, filename);
  if (!format) {
    throw new HttpError(
      415,
      "UNSUPPORTED_FILE_TYPE",
      `Unsupported or mismatched file type. Allowed: ${ALLOWED_EXTENSIONS.join(", ")} (checked by content and name)`,
      {
        allowed: ALLOWED_EXTENSIONS,
      },
    );
  }
  if (fields.course_id && !(await findCourse(deps.db, principal.orgId, fields.course_id))) throw notFound("Course");
  const access = accessGiven(fields);
  await checkAccessCourse(deps, principal.orgId, access);

  const contentHash = createHash("sha256").update(file.buffer).digest("hex");
  const existing = await findDocumentByHash(deps.db, principal.orgId, contentHash);
  if (existing) {
    if (fields.course_id) await setCourseSourceDocument(deps.db, principal.orgId, fields.course_id, existing.id);
    // Restrictions sent with a duplicate apply to the existing document rather than being lost.
    if (Object.keys(access).length > 0)
      return { document: (await updateDocumentAccess(deps.db, principal.orgId, existing.id, access)) ?? existing, duplicate: true };
    return { document: existing, duplicate: true };
  }

  let document: DocumentRow;
  try {
    document = await createUploadedDocument(deps.db, {
      orgId: principal.orgId,
      uploadedBy: principal.userId,
      title: fields.title ?? filename.replace(/\.[^.]+$/, ""),
      filename,
      mimeType: MIME_TYPES[format],
      bytes: file.buffer,
      contentHash,
      // Extraction replaces a file-name title with the document's own, never one the admin gave.
      metadata: { format, title_source: fields.title ? "admin" : "filename" },
      access,
      courseId: fields.course_id,
    });
  } catch (error) {
    // Two identical uploads raced; the other one won. Answer with its document.
    if ((error as { code?: string }).code === "23505") {
      const winner = await findDocumentByHash(deps.db, principal.orgId, contentHash);
      if (winner) return { document: winner, duplicate: true };
    }
    throw error;
  }
  await queueIngestion(deps, document, principal.userId);
  return { document, duplicate: false };
}

/** Two uploads are "the same request" (Idempotency-Key) when the bytes, the file name and the fields match. */
export function uploadFingerprint(upload: { file: UploadedFile; fields: Record<string, string> }): string {
  const fields = Object.keys(upload.fields)
    .sort()
    .map((key) => [key, upload.fields[key]]);
  return createHash("sha256")
    .update(upload.file.buffer)
    .update(JSON.stringify([upload.file.originalname, fields]))
    .digest("hex");
}

/** Queues the extract stage for the document's current generation. */
export async function queueIngestion(deps: ServerDeps, document: Pick<DocumentRow, "id" | "org_id" | "ingest_generation">, userId: string): Promise<void> {
  try {
    await deps.producer.enqueueIngestStage("ingest-extract", {
      orgId: document.org_id,
      documentId: document.id,
      userId,
      generation: document.ingest_generation,
    });
  } catch (error) {
    // The bytes are safe in Postgres; the document stays PENDING and a reindex re-queues it.
    deps.log.error({ err: error, documentId: document.id }, "could not queue ingestion");
    throw new HttpError(503, "QUEUE_UNAVAILABLE", "The document was stored but indexing could not be queued; retry with POST /api/v1/documents/:id/reindex");
  }
}
