/** What the tutor knows about one employee: courses, progress, skills, reviews, documents. */
import type { Db } from "../knex";
import { courseUsableBy, readableBy, type Reader } from "./access";

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
  const row = await db("spaced_repetition")
    .where({ org_id: orgId, user_id: userId })
    .andWhere("next_review_at", "<=", db.fn.now())
    .count<{ count: string }[]>("* as count")
    .first();
  return Number(row?.count ?? 0);
}

/** A course's source document chosen for the document rung, with a bounded prefix of its text. */
export interface CourseDocument {
  document_id: string;
  title: string;
  course_id: string;
  course_title: string;
  rank: number;
  /** At most `maxChars` characters of the extracted text. */
  text: string;
  /** True when the stored text is longer than `text`. */
  cut: boolean;
}

/**
 * The source document for the document rung: the current course's, else the best-ranked one of
 * the courses the reader is enrolled in that shares words with the question. Only courses the
 * reader may use and documents they may read are considered. Ranking reads the stored tsvector
 * of a bounded prefix (`documents.full_text_tsv`) and only the chosen document's first
 * `maxChars` characters leave the database, however long its text is.
 */
export async function courseDocumentFor(
  db: Db,
  reader: Reader,
  { currentCourseId, words, maxChars }: { currentCourseId: string | null; words: string[]; maxChars: number },
): Promise<CourseDocument | undefined> {
  const terms = [...new Set(words.map((w) => w.replace(/[^\p{L}\p{N}]/gu, "")).filter((w) => w.length > 1))].slice(0, 32);
  const rank = terms.length > 0 ? db.raw("ts_rank_cd(d.full_text_tsv, to_tsquery('simple', ?))", [terms.join(" | ")]) : db.raw("0::real");
  const current = currentCourseId ?? "00000000-0000-0000-0000-000000000000";
  const rows = await db.raw(
    `WITH candidate AS (
       SELECT d.id AS document_id, d.title, c.id AS course_id, c.title AS course_title, (c.id = ?) AS is_current, ? AS rank
         FROM courses c
         JOIN documents d ON d.id = c.source_document_id AND d.org_id = c.org_id
        WHERE c.org_id = ? AND octet_length(d.full_text) > 0
          AND (c.id = ? OR EXISTS (SELECT 1 FROM enrollments e WHERE e.org_id = c.org_id AND e.course_id = c.id AND e.user_id = ?))
          AND ? AND ?
     ), chosen AS (
       SELECT * FROM candidate WHERE is_current OR rank > 0 ORDER BY is_current DESC, rank DESC, course_title LIMIT 1
     )
     SELECT chosen.*, left(d.full_text, ?) AS text
       FROM chosen JOIN documents d ON d.id = chosen.document_id`,
    [current, rank, reader.orgId, current, reader.userId, courseUsableBy(db, reader, "c"), readableBy(db, reader, "d"), maxChars + 1],
  );
  const row = rows.rows[0] as (Omit<CourseDocument, "cut"> & { is_current: boolean }) | undefined;
  if (!row) return undefined;
  const cut = row.text.length > maxChars;
  return {
    document_id: row.document_id,
    title: row.title,
    course_id: row.course_id,
    course_title: row.course_title,
    rank: Number(row.rank),
    text: cut ? row.text.slice(0, maxChars) : row.text,
    cut,
  };
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

/** Lessons of the given modules, only where they belong to `courseId`. */
export async function lessonsOfModules(db: Db, orgId: string, courseId: string, moduleIds: string[]): Promise<LessonContent[]> {
  if (moduleIds.length === 0) return [];
  return db("lessons as l")
    .join("modules as m", "m.id", "l.module_id")
    .whereIn("l.module_id", moduleIds)
    .andWhere({ "l.org_id": orgId, "l.course_id": courseId })
    .select("l.id", "l.title", "l.content", "l.module_id", "m.title as module_title", "m.position as module_position")
    .orderBy([{ column: "m.position" }, { column: "l.position" }]);
}

/** One lesson, only when it belongs to `courseId`: a lesson of another course never enters a prompt. */
export async function lessonWithModule(db: Db, orgId: string, courseId: string, lessonId: string): Promise<LessonContent | undefined> {
  return db("lessons as l")
    .join("modules as m", "m.id", "l.module_id")
    .where({ "l.id": lessonId, "l.org_id": orgId, "l.course_id": courseId })
    .select("l.id", "l.title", "l.content", "l.module_id", "m.title as module_title", "m.position as module_position")
    .first();
}
