/** Courses, modules and lessons, always within one org. */
import type { Db } from "../knex";
import { courseUsableBy, type Reader } from "./access";

export interface CourseRow {
  id: string;
  org_id: string;
  title: string;
  /** ISO 639-1. */
  language: string;
  source_document_id: string | null;
}

export interface LessonRow {
  id: string;
  org_id: string;
  course_id: string;
  module_id: string;
  title: string;
  content: string;
  position: number;
}

export async function findCourse(db: Db, orgId: string, courseId: string): Promise<CourseRow | undefined> {
  return db<CourseRow>("courses").select("id", "org_id", "title", "language", "source_document_id").where({ id: courseId, org_id: orgId }).first();
}

export async function findLesson(db: Db, orgId: string, lessonId: string): Promise<LessonRow | undefined> {
  return db<LessonRow>("lessons")
    .select("id", "org_id", "course_id", "module_id", "title", "content", "position")
    .where({ id: lessonId, org_id: orgId })
    .first();
}

/** Whether a course exists in the reader's org and, if so, whether they may use it. */
export async function courseAvailability(db: Db, reader: Reader, courseId: string): Promise<"usable" | "not_usable" | "missing"> {
  const row = await db("courses as c")
    .where({ "c.id": courseId, "c.org_id": reader.orgId })
    .first(db.raw("? AS usable", [courseUsableBy(db, reader, "c")]));
  if (!row) return "missing";
  return row.usable ? "usable" : "not_usable";
}
