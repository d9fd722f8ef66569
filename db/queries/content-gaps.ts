/**
 * The questions the content-gap report groups: an organisation's answered tutor questions since a
 * moment, with their vector, how they were answered (rung, rating), who asked (user, department)
 * and in which language. Capped, newest first, so a busy organisation's report stays bounded.
 * Only people still active count: a deactivated employee's questions leave the report. Every
 * join is on the organisation too, so no row of another tenant can ever be matched.
 */
import type { Db } from "../knex";
import { storedVector } from "./json-columns";
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
    .join("question_vectors as v", (on) => on.on("v.message_id", "q.id").andOn("v.org_id", "q.org_id"))
    .join("users as u", (on) => on.on("u.id", "s.user_id").andOn("u.org_id", "s.org_id"))
    .leftJoin("chat_feedback as f", (on) => on.on("f.message_id", "a.id").andOn("f.org_id", "a.org_id"))
    .where({ "q.org_id": orgId, "q.role": "user", "s.agent_type": "tutor", "a.status": "complete", "v.model": input.model, "u.is_active": true })
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
    embedding: storedVector.parse(row.embedding),
  }));
}

/**
 * A cheap summary of everything the report depends on, compared with the one a cached report
 * was computed from: new question vectors, a rating given or changed, a person deactivated or
 * reactivated. Six index lookups in one statement, so checking it costs far less than grouping.
 */
export async function contentGapFingerprint(db: Db, orgId: string, model: string): Promise<string> {
  const row = await db
    .select(
      db("question_vectors").where({ org_id: orgId, model }).count("*").as("vectors"),
      db("question_vectors").where({ org_id: orgId, model }).max("created_at").as("last_vector"),
      db("chat_feedback").where({ org_id: orgId }).count("*").as("ratings"),
      db("chat_feedback").where({ org_id: orgId }).max("updated_at").as("last_rating"),
      db("users").where({ org_id: orgId, is_active: true }).count("*").as("active_people"),
      db("users").where({ org_id: orgId }).max("deactivated_at").as("last_deactivation"),
    )
    .first();
  const stamp = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value ?? ""));
  return [row.vectors, row.last_vector, row.ratings, row.last_rating, row.active_people, row.last_deactivation].map(stamp).join("|");
}
