/** Chat messages. An assistant message is unique per turn: a retried job can never store two. */
import type { Db } from "../knex";

export type MessageRole = "user" | "assistant";

export interface ChatMessageRow {
  id: string;
  org_id: string;
  session_id: string;
  turn_id: string;
  role: MessageRole;
  content: string;
  status: "complete" | "failed";
  metadata: Record<string, unknown>;
  created_at: Date;
}

export async function insertUserMessage(
  db: Db,
  values: { orgId: string; sessionId: string; turnId: string; content: string; metadata?: Record<string, unknown> },
): Promise<ChatMessageRow> {
  const [row] = await db<ChatMessageRow>("chat_messages")
    .insert({
      org_id: values.orgId,
      session_id: values.sessionId,
      turn_id: values.turnId,
      role: "user",
      content: values.content,
      metadata: values.metadata ?? {},
    })
    .returning("*");
  return row!;
}

/**
 * Stores the assistant's answer for a turn exactly once. A second call for the same turn
 * (a redelivered job) returns the row stored first and changes nothing.
 */
export async function insertAssistantMessageOnce(
  db: Db,
  values: { orgId: string; sessionId: string; turnId: string; content: string; status?: "complete" | "failed"; metadata: Record<string, unknown> },
): Promise<{ row: ChatMessageRow; inserted: boolean }> {
  const inserted = await db<ChatMessageRow>("chat_messages")
    .insert({
      org_id: values.orgId,
      session_id: values.sessionId,
      turn_id: values.turnId,
      role: "assistant",
      content: values.content,
      status: values.status ?? "complete",
      metadata: values.metadata,
    })
    .onConflict(["turn_id", "role"])
    .ignore()
    .returning("*");
  if (inserted[0]) return { row: inserted[0], inserted: true };
  const existing = await findTurnMessage(db, values.orgId, values.turnId, "assistant");
  return { row: existing!, inserted: false };
}

export async function findTurnMessage(db: Db, orgId: string, turnId: string, role: MessageRole): Promise<ChatMessageRow | undefined> {
  return db<ChatMessageRow>("chat_messages").where({ org_id: orgId, turn_id: turnId, role }).first();
}

export async function listSessionMessages(db: Db, orgId: string, sessionId: string): Promise<ChatMessageRow[]> {
  return db<ChatMessageRow>("chat_messages")
    .where({ org_id: orgId, session_id: sessionId })
    .orderBy([{ column: "created_at", order: "asc" }, { column: "role", order: "desc" }]);
}

/** Messages before a turn, oldest first: the raw material for history and summaries. */
export async function listMessagesBeforeTurn(db: Db, orgId: string, sessionId: string, turnId: string): Promise<ChatMessageRow[]> {
  const current = await findTurnMessage(db, orgId, turnId, "user");
  const query = db<ChatMessageRow>("chat_messages")
    .where({ org_id: orgId, session_id: sessionId, status: "complete" })
    .whereNot({ turn_id: turnId })
    .orderBy([{ column: "created_at", order: "asc" }, { column: "role", order: "desc" }]);
  if (current) query.andWhere("created_at", "<", current.created_at);
  return query;
}

/** Removes one message (a turn whose job could not be queued is undone). */
export async function deleteMessage(db: Db, orgId: string, messageId: string): Promise<void> {
  await db("chat_messages").where({ id: messageId, org_id: orgId }).delete();
}
