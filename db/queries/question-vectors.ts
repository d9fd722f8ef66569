/**
 * Tutor questions as vectors, for grouping what employees ask by meaning (the content-gap
 * report). A sweep embeds answered questions that have no vector for the current embedding model
 * yet; the report reads only vectors of that model, so changing models never mixes spaces.
 */
import type { Db } from "../knex";

/** Greetings, thanks and progress questions are never content gaps: nothing to upload for them. */
export const NOT_ABOUT_MATERIAL = ["chitchat", "off_topic", "progress"] as const;
/** Questions older than this are not embedded by the sweep. */
const SWEEP_WINDOW_DAYS = 90;

export interface PendingQuestion {
  id: string;
  orgId: string;
  /** Who asked: the question-embedding cache keeps an entry only with its asker (their erasure removes it). */
  userId: string;
  content: string;
}

/** Answered tutor questions of the last 90 days without a vector of `model`, newest first, outside the organisations left out. */
export async function listQuestionsToEmbed(db: Db, model: string, limit: number, leaveOut: string[] = []): Promise<PendingQuestion[]> {
  const rows = await db("chat_messages as q")
    .join("chat_sessions as s", (on) => on.on("s.id", "q.session_id").andOn("s.org_id", "q.org_id"))
    .join("chat_messages as a", (on) => on.on("a.turn_id", "q.turn_id").andOn("a.org_id", "q.org_id").andOnVal("a.role", "assistant"))
    .leftJoin("question_vectors as v", "v.message_id", "q.id")
    .where({ "q.role": "user", "s.agent_type": "tutor", "a.status": "complete" })
    .andWhere("q.created_at", ">=", db.raw(`now() - interval '${SWEEP_WINDOW_DAYS} days'`))
    .andWhereRaw("coalesce(a.metadata->>'intent', '') <> ALL(?)", [[...NOT_ABOUT_MATERIAL]])
    .andWhere((open) => open.whereNull("v.message_id").orWhereNot("v.model", model))
    .andWhere((outside) => {
      if (leaveOut.length > 0) outside.whereNotIn("q.org_id", leaveOut);
    })
    .orderBy("q.created_at", "desc")
    .limit(limit)
    .select("q.id", "q.org_id", "s.user_id", "q.content");
  return rows.map((row) => ({ id: row.id, orgId: row.org_id, userId: row.user_id, content: row.content }));
}

export async function saveQuestionVectors(db: Db, model: string, vectors: Array<{ messageId: string; orgId: string; embedding: number[] }>): Promise<void> {
  if (vectors.length === 0) return;
  await db("question_vectors")
    .insert(vectors.map((v) => ({ message_id: v.messageId, org_id: v.orgId, model, embedding: JSON.stringify(v.embedding) })))
    .onConflict("message_id")
    .merge(["model", "embedding", "created_at"]);
}
