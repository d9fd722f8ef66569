/**
 * The questions the content-gap report groups: an organisation's answered tutor questions since a
 * moment, with their vector, how they were answered (rung, rating), who asked (user, department)
 * and in which language. Capped, newest first, so a busy organisation's report stays bounded.
 */
import type { Db } from "../knex";
import { NOT_ABOUT_MATERIAL } from "./question-vectors";

export const MAX_REPORTED_QUESTIONS = 5_000;

export interface AnsweredQuestion {
  id: string;
  content: string;
  askedAt: Date;
  userId: string;
  department: string | null;
  language: string | null;
  rung: string | null;
  rating: "up" | "down" | null;
  embedding: number[];
}

export async function listAnsweredQuestions(db: Db, orgId: string, input: { since: Date; model: string }): Promise<AnsweredQuestion[]> {
  const rows = await db("chat_messages as q")
    .join("chat_sessions as s", (on) => on.on("s.id", "q.session_id").andOn("s.org_id", "q.org_id"))
    .join("chat_messages as a", (on) => on.on("a.turn_id", "q.turn_id").andOn("a.org_id", "q.org_id").andOnVal("a.role", "assistant"))
    .join("question_vectors as v", "v.message_id", "q.id")
    .leftJoin("users as u", "u.id", "s.user_id")
    .leftJoin("chat_feedback as f", "f.message_id", "a.id")
    .where({ "q.org_id": orgId, "q.role": "user", "s.agent_type": "tutor", "a.status": "complete", "v.model": input.model })
    .andWhere("q.created_at", ">=", input.since)
    .andWhereRaw("coalesce(a.metadata->>'intent', '') <> ALL(?)", [[...NOT_ABOUT_MATERIAL]])
    .orderBy("q.created_at", "desc")
    .limit(MAX_REPORTED_QUESTIONS)
    .select(
      "q.id",
      "q.content",
      "q.created_at",
      "s.user_id",
      "u.department",
      db.raw("a.metadata->>'language' as language"),
      db.raw("a.metadata->>'rung' as rung"),
      "f.rating",
      "v.embedding",
    );
  return rows.map((row) => ({
    id: row.id,
    content: row.content,
    askedAt: new Date(row.created_at),
    userId: row.user_id,
    department: row.department ?? null,
    language: row.language ?? null,
    rung: row.rung ?? null,
    rating: row.rating ?? null,
    embedding: row.embedding as number[],
  }));
}
