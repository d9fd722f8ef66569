/**
 * Document access restrictions as the documents API accepts them: the course a document is
 * restricted to must be a course of the admin's org (archived is fine: its enrollees remain).
 */
import { findCourse } from "../../../db/queries/courses";
import type { DocumentAccess } from "../../../db/queries/documents";
import type { ServerDeps } from "../../deps";
import { badRequest } from "../../errors";

/** Refuses (400) a restriction to a course that is not in the org. */
export async function checkAccessCourse(deps: ServerDeps, orgId: string, access: Partial<DocumentAccess>): Promise<void> {
  const courseId = access.restricted_course_id;
  if (courseId && !(await findCourse(deps.db, orgId, courseId))) {
    throw badRequest("restricted_course_id does not name a course of your organisation", {
      fields: [{ path: "body.restricted_course_id", message: "unknown course" }],
    });
  }
}

/** The access keys actually given (undefined = leave unchanged). */
export function accessGiven(fields: Partial<DocumentAccess>): Partial<DocumentAccess> {
  const access: Partial<DocumentAccess> = {};
  if (fields.restricted_departments !== undefined) access.restricted_departments = fields.restricted_departments;
  if (fields.restricted_course_id !== undefined) access.restricted_course_id = fields.restricted_course_id;
  return access;
}
