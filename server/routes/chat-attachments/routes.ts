/**
 * Files an employee attaches to a tutor conversation. The upload passes the documents' guards
 * (multipart read with its size bound, the format confirmed by name and content, the upload rate
 * limit, the AI allowance) and is stored `processing`; a worker reads it off the request
 * (`chat-attachment`), and `attachment_status` tells the owner's sockets when it is ready or
 * failed. Sent with a question (`attachment_ids` of POST /api/v1/chat), the tutor reads it for
 * that conversation only. Removed before it is sent, it is deleted.
 */
import type { Context } from "koa";
import { attachFile } from "../../../commands/attach-file";
import { removeAttachment } from "../../../commands/remove-attachment";
import { findOwnedSession } from "../../../db/queries/chat-sessions";
import { listSessionAttachments, type AttachmentRow } from "../../../db/queries/chat-attachments";
import { ATTACHMENT_MAX_BYTES } from "../../../lib/chat-attachment-limits";
import { UPLOAD_FORMATS_TEXT } from "../../../lib/document-formats";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { RateLimiter } from "../../middleware/rate-limit";
import { documentLimitsOf } from "../../middleware/organisation-limits";
import { parseInput } from "../../validation";
import { requireAllowance } from "../allowance/gate";
import { defineRoute } from "../define-route";
import { acceptedFormat } from "../documents/upload-document";
import { readSingleUpload } from "../documents/multipart";
import { attachFields, attachmentParams, attachmentResponse, attachmentsResponse, sessionParams } from "./schema";

export const presentAttachment = (row: AttachmentRow) => ({
  id: row.id,
  session_id: row.session_id,
  message_id: row.message_id,
  filename: row.filename,
  format: row.format,
  size_bytes: row.size_bytes,
  status: row.status,
  error_code: row.error_code,
  error: row.error,
  created_at: row.created_at,
});

/** The upload rate limit of documents, per person and organisation, before the body is read. */
function withinUploadLimits(deps: ServerDeps) {
  const limiter = new RateLimiter(deps.redis);
  return async (ctx: Context, next: () => Promise<void>) => {
    const principal = principalOf(ctx);
    await limiter.consumeFor(principal, "attachment", await documentLimitsOf(deps, principal.orgId, "upload"));
    await next();
  };
}

export const chatAttachmentRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/chat/attachments",
    tag: "chat",
    summary: `Attach a file (${UPLOAD_FORMATS_TEXT}) to one of your tutor conversations`,
    description:
      "multipart/form-data with `file` (at most 5 MB) and optional `session_id`. Stored `processing` and read by a worker (extraction, OCR); " +
      "`attachment_status` on your sockets says `ready` or `failed` (code ATTACHMENT_FAILED). A conversation holds at most 20 files and 50 MB.",
    access: "bearer",
    form: { type: "multipart", fields: attachFields },
    rateLimited: true,
    responses: { 202: { description: "Stored and queued for reading.", schema: attachmentResponse } },
    errors: [
      "FILE_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "UNSUPPORTED_FILE_TYPE",
      "ATTACHMENT_LIMIT",
      "NOT_FOUND",
      "AI_ALLOWANCE_EXHAUSTED",
      "QUEUE_UNAVAILABLE",
    ],
    use: (deps) => [withinUploadLimits(deps), requireAllowance(deps)],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const { file, fields } = await readSingleUpload(ctx, { field: "file", maxBytes: ATTACHMENT_MAX_BYTES });
      const { session_id } = parseInput(attachFields, fields, "body");
      const filename = file.originalname.replaceAll("\u0000", "").slice(0, 255) || "attachment";
      const format = await acceptedFormat(file.buffer, filename);
      const attachment = await attachFile(deps, principal, { sessionId: session_id, filename, format, bytes: file.buffer });
      ctx.status = 202;
      ctx.body = presentAttachment(attachment);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/chat/sessions/:id/attachments",
    tag: "chat",
    summary: "The files attached to one of your tutor conversations, with their state",
    access: "bearer",
    params: sessionParams,
    responses: { 200: { description: "The attachments, oldest first.", schema: attachmentsResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      if (!(await findOwnedSession(deps.db, principal, id))) throw notFound("Chat session");
      ctx.body = { attachments: (await listSessionAttachments(deps.db, principal, id)).map(presentAttachment) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/chat/attachments/:id",
    tag: "chat",
    summary: "Remove a file you attached and have not sent yet (deleted with its passages)",
    access: "bearer",
    params: attachmentParams,
    responses: { 204: { description: "Deleted." } },
    errors: ["ATTACHMENT_ALREADY_SENT", "NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      await removeAttachment(deps, principalOf(ctx), id);
      ctx.status = 204;
    },
  }),
];
