/**
 * What an employee may pick as tutor context: the courses they may use (see db/queries/access.ts
 * courseUsableBy) with their lessons in teaching order. Read by the browser's course picker.
 */
import type { Db } from "../knex";
import { courseUsableBy, type Reader } from "./access";

export interface PickableLesson {
  id: string;
  title: string;
  module_title: string;
}

export interface PickableCourse {
  id: string;
  title: string;
  /** ISO 639-1. */
  language: string;
  lessons: PickableLesson[];
}

/** Every course `reader` may use as context, title order, each with its lessons by module and position. */
export async function listPickableCourses(db: Db, reader: Reader): Promise<PickableCourse[]> {
  const courses = (await db("courses as c")
    .select("c.id", "c.title", "c.language")
    .where("c.org_id", reader.orgId)
    .andWhereRaw("?", [courseUsableBy(db, reader, "c")])
    .orderBy("c.title")) as Array<Omit<PickableCourse, "lessons">>;
  if (courses.length === 0) return [];
  const lessons = (await db("lessons as l")
    .join("modules as m", function () {
      this.on("m.id", "l.module_id").andOn("m.org_id", "l.org_id");
    })
    .select("l.id", "l.title", "l.course_id", "m.title as module_title")
    .where("l.org_id", reader.orgId)
    .whereIn(
      "l.course_id",
      courses.map((c) => c.id),
    )
    .orderBy([{ column: "m.position" }, { column: "l.position" }])) as Array<PickableLesson & { course_id: string }>;
  return courses.map((course) => ({
    ...course,
    lessons: lessons.filter((l) => l.course_id === course.id).map(({ id, title, module_title }) => ({ id, title, module_title })),
  }));
}
