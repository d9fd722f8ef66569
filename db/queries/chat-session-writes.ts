/**
 * A person's deletion of their own chat session, inside the transaction of
 * commands/delete-chat-session.ts (which records its audit event); a turn's own session writes
 * (summaries, titles) are chat-sessions.ts's. Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import type { Owner } from "./chat-sessions";

/** Deletes a session and (by cascade) its messages; false when it is not the caller's. */
export async function deleteOwnedSession(db: Knex, owner: Owner, sessionId: string): Promise<boolean> {
  const deleted = await db("chat_sessions").where({ id: sessionId, org_id: owner.orgId, user_id: owner.userId }).delete();
  return deleted > 0;
}
