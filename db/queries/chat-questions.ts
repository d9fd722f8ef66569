/**
 * Storing the question that starts a chat turn: the session (created on first use, or the
 * caller's own session of that kind touched) and the user message, in one statement. One
 * statement is one round trip and its own transaction: BEGIN, two or three statements and COMMIT
 * were five round trips on the request path of every turn (bench/optimisations.md, section 2).
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import type { StoredMetadata } from "./message-metadata";
import type { AgentType, Owner } from "./chat-sessions";

export interface StoredQuestion {
  sessionId: string;
  messageId: string;
  createdSession: boolean;
}

export interface QuestionValues {
  /** The caller's existing session, or undefined to create one. */
  sessionId: string | undefined;
  agentType: AgentType;
  /** Title of a new session. */
  title: string;
  /** Replaces the session's context when given (tutor: the pinned course and lesson). */
  sessionContext: Record<string, unknown> | undefined;
  turnId: string;
  content: string;
  metadata: StoredMetadata;
}

/** Undefined when `sessionId` is not a session of this owner and agent type. */
export async function storeQuestion(db: Db, owner: Owner, values: QuestionValues): Promise<StoredQuestion | undefined> {
  const message = [owner.orgId, values.turnId, values.content, JSON.stringify(values.metadata)];
  const insertMessage = `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content, metadata)
       SELECT ?, s.id, ?, 'user', ?, ?::jsonb FROM s
       RETURNING id, session_id`;
  if (!values.sessionId) {
    const { rows } = await db.raw(
      `WITH s AS (
         INSERT INTO chat_sessions (org_id, user_id, agent_type, title, context) VALUES (?, ?, ?, ?, ?::jsonb) RETURNING id
       ) ${insertMessage}`,
      [owner.orgId, owner.userId, values.agentType, values.title, JSON.stringify(values.sessionContext ?? {}), ...message],
    );
    return { sessionId: rows[0].session_id, messageId: rows[0].id, createdSession: true };
  }
  const context = values.sessionContext ? ", context = ?::jsonb" : "";
  const { rows } = await db.raw(
    `WITH s AS (
       UPDATE chat_sessions SET updated_at = now()${context}
        WHERE id = ? AND org_id = ? AND user_id = ? AND agent_type = ?
       RETURNING id
     ) ${insertMessage}`,
    [...(values.sessionContext ? [JSON.stringify(values.sessionContext)] : []), values.sessionId, owner.orgId, owner.userId, values.agentType, ...message],
  );
  return rows[0] ? { sessionId: rows[0].session_id, messageId: rows[0].id, createdSession: false } : undefined;
}

/** Questions older than this no longer hold a session open (the lost-turn sweep looks back as far). */
const OPEN_TURN_LOOKBACK_HOURS = 24;

export type AdminQuestion = { stored: StoredQuestion } | { busy: { turnId: string } } | { missing: true };

/**
 * Stores an admin's next question only if no earlier turn of the session is still running (a
 * question without its assistant message). The session row is locked first, so two questions
 * sent at once cannot both find the session idle: one turn at a time per admin session, which is
 * what lets a reply be read against the proposal the admin actually saw.
 */
export async function storeAdminQuestion(trx: Knex.Transaction, owner: Owner, values: QuestionValues & { sessionId: string }): Promise<AdminQuestion> {
  const session = await trx("chat_sessions")
    .where({ id: values.sessionId, org_id: owner.orgId, user_id: owner.userId, agent_type: values.agentType })
    .forUpdate()
    .first("id");
  if (!session) return { missing: true as const };
  const open = await trx("chat_messages as q")
    .where({ "q.session_id": session.id, "q.org_id": owner.orgId, "q.role": "user" })
    .andWhereRaw("q.created_at > now() - (? * interval '1 hour')", [OPEN_TURN_LOOKBACK_HOURS])
    .whereNotExists(function () {
      this.select(trx.raw("1")).from("chat_messages as a").whereRaw("a.turn_id = q.turn_id").andWhere("a.role", "assistant");
    })
    .orderBy("q.created_at", "desc")
    .first("q.turn_id");
  if (open) return { busy: { turnId: open.turn_id as string } };
  const [message] = await trx("chat_messages")
    .insert({ org_id: owner.orgId, session_id: session.id, turn_id: values.turnId, role: "user", content: values.content, metadata: values.metadata })
    .returning("id");
  await trx("chat_sessions").where({ id: session.id }).update({ updated_at: trx.fn.now() });
  return { stored: { sessionId: session.id, messageId: message.id as string, createdSession: false } };
}
