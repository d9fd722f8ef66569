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

/** A course source document the document rung may take: the current course's, or an enrolled course's. */
export interface CourseDocumentCandidate {
  document_id: string;
  title: string;
  course_id: string;
  course_title: string;
  is_current: boolean;
  /** Per term asked (same order): whether the document's text (its stored tsvector, not its title) holds it. */
  matched: boolean[];
}

/** At most this many enrolled courses' documents are weighed for one question. */
const MAX_CANDIDATES = 50;

/**
 * The documents the document rung chooses from: the current course's source document and those
 * of the courses the reader is enrolled in, each with which of `terms` (`to_tsquery('simple', …)`
 * expressions) its text holds. Only courses the reader may use and documents they may read are
 * considered. Matching reads the stored tsvector of a bounded prefix (`documents.full_text_tsv`),
 * built from the text alone, so a title word is never mistaken for what the document covers; no
 * text leaves the database here (documentTextPrefix reads the chosen one).
 */
export async function courseDocumentCandidates(
  db: Db,
  reader: Reader,
  { currentCourseId, terms }: { currentCourseId: string | null; terms: string[] },
): Promise<CourseDocumentCandidate[]> {
  const current = currentCourseId ?? "00000000-0000-0000-0000-000000000000";
  const matches = terms.map((_, i) => `(d.full_text_tsv @@ to_tsquery('simple', ?)) AS m${i}`);
  const rows = await db.raw(
    `SELECT d.id AS document_id, d.title, c.id AS course_id, c.title AS course_title, (c.id = ?) AS is_current${matches.length ? `, ${matches.join(", ")}` : ""}
       FROM courses c
       JOIN documents d ON d.id = c.source_document_id AND d.org_id = c.org_id
      WHERE c.org_id = ? AND octet_length(d.full_text) > 0
        AND (c.id = ? OR EXISTS (SELECT 1 FROM enrollments e WHERE e.org_id = c.org_id AND e.course_id = c.id AND e.user_id = ?))
        AND ? AND ?
      ORDER BY is_current DESC, c.title
      LIMIT ?`,
    [current, ...terms, reader.orgId, current, reader.userId, courseUsableBy(db, reader, "c"), readableBy(db, reader, "d"), MAX_CANDIDATES],
  );
  return (rows.rows as Array<Record<string, unknown>>).map((row) => ({
    document_id: row.document_id as string,
    title: row.title as string,
    course_id: row.course_id as string,
    course_title: row.course_title as string,
    is_current: Boolean(row.is_current),
    matched: terms.map((_, i) => Boolean(row[`m${i}`])),
  }));
}

/** At most `maxChars` characters of a document's extracted text; `cut` when the stored text is longer. */
export async function documentTextPrefix(db: Db, orgId: string, documentId: string, maxChars: number): Promise<{ text: string; cut: boolean } | undefined> {
  const row = await db("documents")
    .where({ id: documentId, org_id: orgId })
    .first(db.raw("left(full_text, ?) AS text", [maxChars + 1]));
  if (!row) return undefined;
  const text = String(row.text ?? "");
  const cut = text.length > maxChars;
  return { text: cut ? text.slice(0, maxChars) : text, cut };
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
