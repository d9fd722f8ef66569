/**
 * The files a tutor question is sent with: each must be the sender's, attached to this
 * conversation, read (`ready`) and not sent before, and together within the per-message limits.
 * A file that could not be read refuses the question with ATTACHMENT_FAILED before anything is
 * stored, so the model never sees a question whose file it lacks; one still being read refuses
 * it with ATTACHMENT_PROCESSING (send it once the file is ready).
 */
import { findOwnedAttachments } from "../db/queries/chat-attachments";
import type { Owner } from "../db/queries/chat-sessions";
import { ATTACHMENT_FAILED, ATTACHMENTS_PER_MESSAGE, MESSAGE_ATTACHMENT_MAX_BYTES } from "../lib/chat-attachment-limits";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";

export async function checkAttachments(deps: Pick<CommandDeps, "db">, owner: Owner, sessionId: string | undefined, ids: string[]): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length > ATTACHMENTS_PER_MESSAGE) {
    throw new Refusal("conflict", "ATTACHMENT_LIMIT", `A message may carry at most ${ATTACHMENTS_PER_MESSAGE} attached files`, {
      limit_files: ATTACHMENTS_PER_MESSAGE,
    });
  }
  // Attachments live in a conversation: a question that starts a new one has none of its own.
  const found = sessionId ? await findOwnedAttachments(deps.db, owner, sessionId, unique) : [];
  if (found.length !== unique.length) throw Refusal.notFound("Attachment");
  const failed = found.find((attachment) => attachment.status === "failed");
  if (failed) {
    throw new Refusal("conflict", ATTACHMENT_FAILED, `"${failed.filename}" could not be read: ${failed.error ?? "the file may be damaged"}`, {
      attachment_id: failed.id,
      reason_code: failed.error_code,
      recovery_hint: "Remove the file, or attach it again in another format, and send the message again.",
    });
  }
  const processing = found.find((attachment) => attachment.status === "processing");
  if (processing) {
    throw new Refusal("conflict", "ATTACHMENT_PROCESSING", `"${processing.filename}" is still being read; send the message once it is ready`, {
      attachment_id: processing.id,
    });
  }
  const sent = found.find((attachment) => attachment.message_id !== null);
  if (sent) throw new Refusal("conflict", "ATTACHMENT_ALREADY_SENT", `"${sent.filename}" was already sent with an earlier message`, { attachment_id: sent.id });
  const bytes = found.reduce((sum, attachment) => sum + attachment.size_bytes, 0);
  if (bytes > MESSAGE_ATTACHMENT_MAX_BYTES) {
    throw new Refusal("conflict", "ATTACHMENT_LIMIT", `The files of one message may add up to at most ${MESSAGE_ATTACHMENT_MAX_BYTES / (1024 * 1024)} MB`, {
      limit_bytes: MESSAGE_ATTACHMENT_MAX_BYTES,
    });
  }
}
