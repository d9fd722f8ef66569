/**
 * Accepting a document: check its type by content and name, and the course and restrictions
 * it names; the upload-document command then deduplicates, stores and queues it.
 */
import { createHash } from "node:crypto";
import { uploadDocument, type UploadResult } from "../../../commands/upload-document";
import { detectFormat } from "../../../lib/detect-document-format";
import { ALLOWED_EXTENSIONS, type DocumentFormat } from "../../../lib/document-formats";
import { findCourse } from "../../../db/queries/courses";
import type { Principal } from "../../auth/tokens";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import { accessGiven, checkAccessCourse } from "./access";
import type { UploadedFile } from "./multipart";
import type { UploadFields } from "./schema";

export async function acceptUpload(deps: ServerDeps, principal: Principal, file: UploadedFile, fields: UploadFields): Promise<UploadResult> {
  const filename = file.originalname.replaceAll("\u0000", "").slice(0, 255) || "upload";
  const format = await acceptedFormat(file.buffer, filename);
  if (fields.course_id && !(await findCourse(deps.db, principal.orgId, fields.course_id))) throw notFound("Course");
  const access = accessGiven(fields);
  await checkAccessCourse(deps, principal.orgId, access);

  return uploadDocument(deps, principal, {
    filename,
    format,
    bytes: file.buffer,
    title: fields.title,
    courseId: fields.course_id,
    access,
    defaultQuotaBytes: deps.config.organisations.ORG_STORAGE_QUOTA_BYTES,
  });
}

/** The file's format, confirmed by content and name; `415 UNSUPPORTED_FILE_TYPE` otherwise. */
export async function acceptedFormat(bytes: Buffer, filename: string): Promise<DocumentFormat> {
  const format = await detectFormat(bytes, filename);
  if (format) return format;
  throw new Refusal(
    "unsupported_media",
    "UNSUPPORTED_FILE_TYPE",
    `Unsupported or mismatched file type. Allowed: ${ALLOWED_EXTENSIONS.join(", ")} (checked by content and name)`,
    {
      allowed: ALLOWED_EXTENSIONS,
    },
  );
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
