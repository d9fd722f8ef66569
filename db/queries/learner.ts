/** What the tutor knows about one employee: courses, progress, skills, reviews, documents. */
import type { Db } from "../knex";

export interface EnrollmentFact {
  course_id: string;
  title: string;
  status: string;
  deadline: Date | null;
  score: string | null;
  total_modules: number;
  completed_modules: number;
}

/** Enrollments with module completion (a module is complete when one of its exercises was passed). */
export async function enrollmentFacts(db: Db, orgId: string, userId: string): Promise<EnrollmentFact[]> {
  const rows = await db.raw(
    `SELECT c.id AS course_id, c.title, e.status, e.deadline, e.score,
            COUNT(DISTINCT m.id)::int AS total_modules,
            COUNT(DISTINCT m.id) FILTER (WHERE EXISTS (
              SELECT 1 FROM exercise_attempts ea
                JOIN exercises ex ON ex.id = ea.exercise_id
                JOIN lessons l ON l.id = ex.lesson_id
               WHERE l.module_id = m.id AND ea.user_id = e.user_id AND ea.passed AND ea.org_id = e.org_id
            ))::int AS completed_modules
       FROM enrollments e
       JOIN courses c ON c.id = e.course_id AND c.org_id = e.org_id
       LEFT JOIN modules m ON m.course_id = c.id
      WHERE e.org_id = ? AND e.user_id = ?
      GROUP BY c.id, c.title, e.status, e.deadline, e.score
      ORDER BY e.deadline NULLS LAST, c.title`,
    [orgId, userId],
  );
  return rows.rows as EnrollmentFact[];
}

export async function skillFacts(db: Db, orgId: string, userId: string): Promise<Array<{ name: string; level: number; category: string | null }>> {
  return db("user_skills as us")
    .join("skills as s", "s.id", "us.skill_id")
    .leftJoin("skill_categories as sc", "sc.id", "s.category_id")
    .where({ "us.org_id": orgId, "us.user_id": userId })
    .select("s.name", "us.level", "sc.name as category")
    .orderBy([{ column: "sc.name" }, { column: "s.name" }]);
}

export async function reviewsDue(db: Db, orgId: string, userId: string): Promise<number> {
  const row = await db("spaced_repetition").where({ org_id: orgId, user_id: userId }).andWhere("next_review_at", "<=", db.fn.now()).count<{ count: string }[]>("* as count").first();
  return Number(row?.count ?? 0);
}

export interface EnrolledDocument {
  document_id: string;
  title: string;
  full_text: string;
  course_id: string;
  course_title: string;
  rank: number;
}

/**
 * Source documents (with full text) of the courses the employee is enrolled in, the current
 * course first, then by how well the text matches the question's words.
 */
export async function enrolledCourseDocuments(db: Db, orgId: string, userId: string, currentCourseId: string | null, words: string[]): Promise<EnrolledDocument[]> {
  const terms = [...new Set(words.map((w) => w.replace(/[^\p{L}\p{N}]/gu, "")).filter((w) => w.length > 1))].slice(0, 32);
  const query = terms.length > 0 ? terms.join(" | ") : "";
  const rows = await db.raw(
    `SELECT d.id AS document_id, d.title, d.full_text, c.id AS course_id, c.title AS course_title,
            CASE WHEN ? = '' THEN 0 ELSE ts_rank_cd(to_tsvector('simple', d.full_text), to_tsquery('simple', ?)) END AS rank
       FROM enrollments e
       JOIN courses c ON c.id = e.course_id AND c.org_id = e.org_id
       JOIN documents d ON d.id = c.source_document_id AND d.org_id = c.org_id
      WHERE e.org_id = ? AND e.user_id = ? AND d.full_text IS NOT NULL AND length(d.full_text) > 0
      ORDER BY (c.id = ?) DESC, rank DESC, c.title`,
    [query, query || "x", orgId, userId, currentCourseId ?? "00000000-0000-0000-0000-000000000000"],
  );
  return (rows.rows as EnrolledDocument[]).map((row) => ({ ...row, rank: Number(row.rank) }));
}

export interface ModuleOutline {
  id: string;
  title: string;
  summary: string | null;
  position: number;
}

export async function courseModules(db: Db, orgId: string, courseId: string): Promise<ModuleOutline[]> {
  return db("modules").select("id", "title", "summary", "position").where({ org_id: orgId, course_id: courseId }).orderBy("position");
}

export interface LessonContent {
  id: string;
  title: string;
  content: string;
  module_id: string;
  module_title: string;
  module_position: number;
}

export async function lessonsOfModules(db: Db, orgId: string, moduleIds: string[]): Promise<LessonContent[]> {
  if (moduleIds.length === 0) return [];
  return db("lessons as l")
    .join("modules as m", "m.id", "l.module_id")
    .whereIn("l.module_id", moduleIds)
    .andWhere("l.org_id", orgId)
    .select("l.id", "l.title", "l.content", "l.module_id", "m.title as module_title", "m.position as module_position")
    .orderBy([{ column: "m.position" }, { column: "l.position" }]);
}

export async function lessonWithModule(db: Db, orgId: string, lessonId: string): Promise<LessonContent | undefined> {
  return db("lessons as l")
    .join("modules as m", "m.id", "l.module_id")
    .where({ "l.id": lessonId, "l.org_id": orgId })
    .select("l.id", "l.title", "l.content", "l.module_id", "m.title as module_title", "m.position as module_position")
    .first();
}
