/**
 * An employee attaches a file to a tutor conversation (creating the conversation when the page
 * has none yet): the conversation's limits are checked under a lock on it, the file is stored
 * `processing`, and its reading is queued once that has committed — extraction, OCR, chunking and
 * embedding run on a worker, never in the request. Records no audit event, by choice: like the
 * question it comes with, it is the employee's own conversation, not a change to anyone's data
 * or access (it is exported and erased with them). A queue that refuses leaves nothing stored.
 */
import { deleteAttachment, insertAttachment, lockOwnedTutorSession } from "../db/queries/chat-attachment-writes";
import { sessionAttachmentTotals, type AttachmentRow } from "../db/queries/chat-attachments";
import { createSession, type Owner } from "../db/queries/chat-sessions";
import { ATTACHMENTS_PER_CONVERSATION, CONVERSATION_ATTACHMENT_MAX_BYTES } from "../lib/chat-attachment-limits";
import type { DocumentFormat } from "../lib/document-formats";
import { MIME_TYPES } from "../lib/document-formats";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export interface AttachFile {
  /** The conversation; undefined starts a new tutor conversation named after the file. */
  sessionId: string | undefined;
  filename: string;
  format: DocumentFormat;
  bytes: Buffer;
}

export async function attachFile(deps: Pick<CommandDeps, "db" | "producer" | "log">, owner: Owner, file: AttachFile): Promise<AttachmentRow> {
  const attachment = await withTransaction(deps, async (trx) => {
    let sessionId = file.sessionId;
    if (sessionId) {
      // The lock serialises two uploads to one conversation, so both cannot pass its limits.
      if (!(await lockOwnedTutorSession(trx, owner, sessionId))) throw Refusal.notFound("Chat session");
    } else {
      sessionId = (await createSession(trx, owner, { agentType: "tutor", title: file.filename.slice(0, 80), context: {} })).id;
    }
    const held = await sessionAttachmentTotals(trx, owner.orgId, sessionId);
    if (held.count + 1 > ATTACHMENTS_PER_CONVERSATION || held.bytes + file.bytes.length > CONVERSATION_ATTACHMENT_MAX_BYTES) {
      throw new Refusal(
        "conflict",
        "ATTACHMENT_LIMIT",
        `A conversation may hold at most ${ATTACHMENTS_PER_CONVERSATION} attached files and ${CONVERSATION_ATTACHMENT_MAX_BYTES / (1024 * 1024)} MB; start a new conversation to attach more`,
        { limit_files: ATTACHMENTS_PER_CONVERSATION, limit_bytes: CONVERSATION_ATTACHMENT_MAX_BYTES },
      );
    }
    return insertAttachment(trx, {
      orgId: owner.orgId,
      sessionId,
      userId: owner.userId,
      filename: file.filename,
      format: file.format,
      mimeType: MIME_TYPES[file.format],
      content: file.bytes,
    });
  });
  try {
    await deps.producer.enqueueChatAttachment({ orgId: owner.orgId, userId: owner.userId, sessionId: attachment.session_id, attachmentId: attachment.id });
  } catch (error) {
    deps.log.error({ err: error, attachmentId: attachment.id }, "could not queue the attachment's reading; removing it");
    await deleteAttachment(deps.db, owner.orgId, attachment.id);
    throw new Refusal("unavailable", "QUEUE_UNAVAILABLE", "The file could not be queued for reading right now; attach it again in a moment.", undefined, {
      cause: error,
    });
  }
  return attachment;
}
