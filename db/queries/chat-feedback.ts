/**
 * Ratings of answers: one per assistant message, given by the owner of its session, stored with
 * the rung and sources the answer had, so a rating can be read without the message's metadata
 * (and the content-gap report can find rated-down questions). Rating again replaces.
 */
import type { Db } from "../knex";
import { readMetadata } from "./message-metadata";

export type Rating = "up" | "down";

export interface FeedbackRow {
  message_id: string;
  rating: Rating;
  comment: string | null;
  rung: string | null;
  updated_at: Date;
}

export const FEEDBACK_COLUMNS = ["message_id", "rating", "comment", "rung", "updated_at"] as const;

/** The caller's own assistant message (its metadata: rung, sources…); undefined when it is not theirs or not an answer. */
export async function findOwnAnswer(db: Db, owner: { orgId: string; userId: string }, messageId: string) {
  const answer = await db("chat_messages as m")
    .join("chat_sessions as s", (on) => on.on("s.id", "m.session_id").andOn("s.org_id", "m.org_id"))
    .where({ "m.id": messageId, "m.org_id": owner.orgId, "m.role": "assistant", "s.user_id": owner.userId })
    .first<{ metadata: unknown } | undefined>("m.metadata");
  return answer && { metadata: readMetadata(answer.metadata) };
}

/** The caller's ratings in one of their sessions (empty for a session that is not theirs). */
export async function listSessionFeedback(db: Db, owner: { orgId: string; userId: string }, sessionId: string): Promise<FeedbackRow[]> {
  return db("chat_feedback as f")
    .join("chat_messages as m", "m.id", "f.message_id")
    .where({ "f.org_id": owner.orgId, "f.user_id": owner.userId, "m.session_id": sessionId })
    .select(FEEDBACK_COLUMNS.map((column) => `f.${column}`));
}
