/**
 * Writes of chat attachments: the upload command's insert and the start-turn command's link to
 * the question (inside their transactions), and the worker's result — the passages and `ready`,
 * or `failed` with a code — each one statement or one transaction of its own.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { ATTACHMENT_COLUMNS, type AttachmentRow } from "./chat-attachments";

export interface NewAttachment {
  orgId: string;
  sessionId: string;
  userId: string;
  filename: string;
  format: string;
  mimeType: string;
  content: Buffer;
}

/** Locks the caller's tutor conversation for the rest of the transaction; false when it is not theirs or not a tutor one. */
export async function lockOwnedTutorSession(trx: Knex.Transaction, owner: { orgId: string; userId: string }, sessionId: string): Promise<boolean> {
  const session = await trx("chat_sessions").where({ id: sessionId, org_id: owner.orgId, user_id: owner.userId }).forUpdate().first("agent_type");
  return session?.agent_type === "tutor";
}

export type RemovedAttachment = "removed" | "sent" | "missing";

/**
 * Removes the owner's attachment if it has not been sent (its passages go by cascade); a sent one
 * stays with its question. The row is locked first, so a question sending it at the same moment
 * either takes it before (then "sent") or finds it gone. Missing: not the owner's, or none.
 */
export async function removeUnsentAttachment(
  trx: Knex.Transaction,
  owner: { orgId: string; userId: string },
  attachmentId: string,
): Promise<RemovedAttachment> {
  const row = await trx("chat_attachments").where({ id: attachmentId, org_id: owner.orgId, user_id: owner.userId }).forUpdate().first("message_id");
  if (!row) return "missing";
  if (row.message_id !== null) return "sent";
  await trx("chat_attachments").where({ id: attachmentId, org_id: owner.orgId }).delete();
  return "removed";
}

/** Removes an attachment whose reading could not be queued. */
export async function deleteAttachment(db: Db, orgId: string, attachmentId: string): Promise<void> {
  await db("chat_attachments").where({ org_id: orgId, id: attachmentId }).delete();
}

export async function insertAttachment(trx: Knex.Transaction, values: NewAttachment): Promise<AttachmentRow> {
  const [row] = await trx("chat_attachments")
    .insert({
      org_id: values.orgId,
      session_id: values.sessionId,
      user_id: values.userId,
      filename: values.filename,
      format: values.format,
      mime_type: values.mimeType,
      size_bytes: values.content.length,
      content: values.content,
    })
    .returning([...ATTACHMENT_COLUMNS]);
  return row as AttachmentRow;
}

/**
 * Locks, for the rest of the transaction, those of `ids` that could still be sent: the owner's,
 * of this session, ready and not sent. Taken in id order, so two questions sending overlapping
 * files wait for each other instead of deadlocking; the one that waited sees the winner's link.
 */
export async function lockSendableAttachments(
  trx: Knex.Transaction,
  owner: { orgId: string; userId: string },
  sessionId: string,
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  return trx("chat_attachments")
    .where({ org_id: owner.orgId, user_id: owner.userId, session_id: sessionId, status: "ready" })
    .whereNull("message_id")
    .whereIn("id", ids)
    .orderBy("id")
    .forUpdate()
    .pluck("id");
}

/** Ties ready, unsent attachments of the session to the question; returns how many it tied. */
export async function linkAttachments(
  db: Db | Knex.Transaction,
  owner: { orgId: string; userId: string },
  sessionId: string,
  ids: string[],
  messageId: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  return db("chat_attachments")
    .where({ org_id: owner.orgId, user_id: owner.userId, session_id: sessionId, status: "ready" })
    .whereNull("message_id")
    .whereIn("id", ids)
    .update({ message_id: messageId, updated_at: db.fn.now() });
}

export interface AttachmentChunk {
  content: string;
  metadata: { heading: string | null; page_start: number | null; page_end: number | null };
  embedding: number[];
}

/** The passages and `ready`, together; false when the attachment is gone or no longer processing (deleted with its conversation). */
export async function completeAttachment(db: Db, orgId: string, attachmentId: string, sessionId: string, chunks: AttachmentChunk[]): Promise<boolean> {
  return db.transaction(async (trx) => {
    const moved = await trx("chat_attachments")
      .where({ org_id: orgId, id: attachmentId, status: "processing" })
      .update({ status: "ready", chunk_count: chunks.length, updated_at: trx.fn.now() });
    if (moved === 0) return false;
    await trx("chat_attachment_chunks").where({ attachment_id: attachmentId }).delete();
    for (let from = 0; from < chunks.length; from += 200) {
      await trx("chat_attachment_chunks").insert(
        chunks.slice(from, from + 200).map((chunk, i) => ({
          org_id: orgId,
          attachment_id: attachmentId,
          session_id: sessionId,
          position: from + i,
          content: chunk.content,
          metadata: chunk.metadata,
          embedding: JSON.stringify(chunk.embedding),
        })),
      );
    }
    return true;
  });
}

/** `failed` with its code and a sentence for the person; false when it had already ended or is gone. */
export async function failAttachment(db: Db, orgId: string, attachmentId: string, failure: { code: string; reason: string }): Promise<boolean> {
  const moved = await db("chat_attachments")
    .where({ org_id: orgId, id: attachmentId, status: "processing" })
    .update({ status: "failed", error_code: failure.code, error: failure.reason, updated_at: db.fn.now() });
  return moved > 0;
}
