/**
 * Reads of the files employees attach to tutor conversations (chat_attachments): every read is
 * scoped by organisation, and what a person or a turn sees also by the conversation's owner and
 * the conversation itself, so an attachment is never visible outside the one conversation.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import type { Owner } from "./chat-sessions";

export type AttachmentStatus = "processing" | "ready" | "failed";

export interface AttachmentRow {
  id: string;
  org_id: string;
  session_id: string;
  user_id: string;
  message_id: string | null;
  filename: string;
  format: string;
  mime_type: string;
  size_bytes: number;
  status: AttachmentStatus;
  error_code: string | null;
  error: string | null;
  chunk_count: number;
  created_at: Date;
  updated_at: Date;
}

/** Every column but the file's bytes. */
export const ATTACHMENT_COLUMNS = [
  "id",
  "org_id",
  "session_id",
  "user_id",
  "message_id",
  "filename",
  "format",
  "mime_type",
  "size_bytes",
  "status",
  "error_code",
  "error",
  "chunk_count",
  "created_at",
  "updated_at",
] as const;

/** The conversation's attachments, oldest first, for its owner only. */
export async function listSessionAttachments(db: Db, owner: Owner, sessionId: string): Promise<AttachmentRow[]> {
  return (await db("chat_attachments")
    .select([...ATTACHMENT_COLUMNS])
    .where({ org_id: owner.orgId, user_id: owner.userId, session_id: sessionId })
    .orderBy("created_at", "asc")) as AttachmentRow[];
}

/** A file as the history shows it under the question it was sent with. */
export interface SentAttachment {
  id: string;
  message_id: string;
  filename: string;
  format: string;
  size_bytes: number;
  status: AttachmentStatus;
}

/**
 * The files sent with `messageIds` (a history page's questions), in the order they were
 * attached, for the conversation's owner only: another person's or organisation's reader, or
 * a message id of another conversation, finds none.
 */
export async function sentAttachmentsOf(db: Db, owner: Owner, sessionId: string, messageIds: string[]): Promise<SentAttachment[]> {
  if (messageIds.length === 0) return [];
  return (await db("chat_attachments")
    .select("id", "message_id", "filename", "format", "size_bytes", "status")
    .where({ org_id: owner.orgId, user_id: owner.userId, session_id: sessionId })
    .whereIn("message_id", messageIds)
    .orderBy([{ column: "created_at" }, { column: "id" }])) as SentAttachment[];
}

/** The caller's attachments of one conversation among `ids` (others' and other conversations' are simply not found). */
export async function findOwnedAttachments(db: Db | Knex.Transaction, owner: Owner, sessionId: string, ids: string[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return [];
  return (await db("chat_attachments")
    .select([...ATTACHMENT_COLUMNS])
    .where({ org_id: owner.orgId, user_id: owner.userId, session_id: sessionId })
    .whereIn("id", ids)) as AttachmentRow[];
}

/** What the conversation already holds, for the per-conversation limits. */
export async function sessionAttachmentTotals(db: Db | Knex.Transaction, orgId: string, sessionId: string): Promise<{ count: number; bytes: number }> {
  const row = (await db("chat_attachments")
    .where({ org_id: orgId, session_id: sessionId })
    .whereNot({ status: "failed" })
    .first(db.raw("count(*)::int AS count"), db.raw("coalesce(sum(size_bytes), 0)::bigint AS bytes"))) as { count: number; bytes: string | number };
  return { count: Number(row.count), bytes: Number(row.bytes) };
}

/** The worker's read: the row and its bytes, by organisation (the job names the owner). */
export async function attachmentWithContent(db: Db, orgId: string, attachmentId: string): Promise<(AttachmentRow & { content: Buffer }) | undefined> {
  return db("chat_attachments")
    .select([...ATTACHMENT_COLUMNS, "content"])
    .where({ org_id: orgId, id: attachmentId })
    .first();
}

/** Whether the conversation has any passage of a sent, ready attachment (a tutor turn asks before embedding anything for them). */
export async function sessionHasAttachmentPassages(db: Db, turn: { orgId: string; userId: string; sessionId: string }): Promise<boolean> {
  const row = await db("chat_attachments")
    .where({ org_id: turn.orgId, user_id: turn.userId, session_id: turn.sessionId, status: "ready" })
    .whereNotNull("message_id")
    .where("chunk_count", ">", 0)
    .first("id");
  return Boolean(row);
}

export interface AttachmentPassage {
  id: string;
  attachment_id: string;
  filename: string;
  message_id: string | null;
  position: number;
  content: string;
  metadata: { heading?: string | null; page_start?: number | null };
  similarity: number | null;
  /** Sent with the question this turn answers. */
  current: boolean;
}

/**
 * The passages of a conversation's sent, ready attachments, for the tutor turn of that
 * conversation's owner: those sent with the turn's own question first, then by cosine
 * similarity to the question when the stored vectors have the question's dimension (else
 * null), then in the file's order.
 */
export async function sessionAttachmentPassages(
  db: Db,
  turn: { orgId: string; userId: string; sessionId: string; turnId: string },
  embedding: number[] | null,
  limit: number,
): Promise<AttachmentPassage[]> {
  const vector = embedding ? JSON.stringify(embedding) : null;
  const { rows } = await db.raw(
    `SELECT c.id, c.attachment_id, a.filename, a.message_id, c.position, c.content, c.metadata,
            CASE WHEN ?::text IS NOT NULL AND c.embedding IS NOT NULL AND vector_dims(c.embedding) = ?
                 THEN 1 - (c.embedding <=> ?::text::vector) END AS similarity,
            a.message_id IN (SELECT m.id FROM chat_messages m WHERE m.turn_id = ? AND m.role = 'user' AND m.session_id = a.session_id) AS current
       FROM chat_attachment_chunks c JOIN chat_attachments a ON a.id = c.attachment_id
      WHERE a.org_id = ? AND a.user_id = ? AND a.session_id = ? AND c.session_id = a.session_id
        AND a.status = 'ready' AND a.message_id IS NOT NULL
      ORDER BY current DESC, similarity DESC NULLS LAST, a.created_at, c.position
      LIMIT ?`,
    [vector, embedding?.length ?? 0, vector ?? "[0]", turn.turnId, turn.orgId, turn.userId, turn.sessionId, limit],
  );
  return rows as AttachmentPassage[];
}

/** A passage of a file the reader attached to one of their own conversations (a citation's source), or undefined. */
export async function ownAttachmentPassage(
  db: Db,
  reader: Owner,
  chunkId: string,
): Promise<{ text: string; filename: string; heading: string | null; pageStart: number | null; pageEnd: number | null } | undefined> {
  const row = await db("chat_attachment_chunks as c")
    .join("chat_attachments as a", "a.id", "c.attachment_id")
    .where({ "c.id": chunkId, "c.org_id": reader.orgId, "a.org_id": reader.orgId, "a.user_id": reader.userId })
    .first("c.content", "c.metadata", "a.filename");
  if (!row) return undefined;
  const meta = row.metadata as { heading?: string | null; page_start?: number | null; page_end?: number | null };
  return { text: row.content, filename: row.filename, heading: meta.heading ?? null, pageStart: meta.page_start ?? null, pageEnd: meta.page_end ?? null };
}
