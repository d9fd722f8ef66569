/** Courses, modules and lessons, always within one org. */
import type { Db } from "../knex";

export interface CourseRow {
  id: string;
  org_id: string;
  title: string;
  language: "es" | "en";
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
  return db<LessonRow>("lessons").select("id", "org_id", "course_id", "module_id", "title", "content", "position").where({ id: lessonId, org_id: orgId }).first();
}
