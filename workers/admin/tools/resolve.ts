/**
 * Turning what the model names ("Lucía", "Returns Essentials", an id) into rows of the caller's
 * organisation. One match is used; several come back as candidates for the admin to choose from;
 * none is "not found". An id from another organisation is simply not found.
 */
import { findPeopleByIds, matchPeopleByName, matchSkillsByName, type PersonRef, type SkillRef } from "../../../db/queries/admin-people";
import { findCourseRef, matchCoursesByTitle, type CourseRef } from "../../../db/queries/admin-courses";
import type { ToolContext, ToolResult } from "./tool";

export type Resolved<T> = { ok: true; value: T } | { ok: false; result: ToolResult };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function clarify(kind: string, asked: string, candidates: unknown[]): ToolResult {
  return {
    status: "needs_clarification",
    message: `"${asked}" matches ${candidates.length} ${kind}s. Ask the admin which one they mean; do not pick one yourself.`,
    asked,
    candidates,
  };
}

const personCandidate = (p: PersonRef) => ({ id: p.id, name: p.name, email: p.email, department: p.department, active: p.is_active });

export async function resolvePerson(context: ToolContext, by: { id?: string; name?: string }): Promise<Resolved<PersonRef>> {
  if (by.id) {
    const [person] = UUID.test(by.id) ? await findPeopleByIds(context.db, context.orgId, [by.id]) : [];
    return person ? { ok: true, value: person } : { ok: false, result: { error: `No employee with id ${by.id} in this organisation.` } };
  }
  if (!by.name?.trim()) return { ok: false, result: { error: "Give the employee's id or name." } };
  const matches = await matchPeopleByName(context.db, context.orgId, by.name);
  if (matches.length === 1) return { ok: true, value: matches[0]! };
  if (matches.length === 0) return { ok: false, result: { error: `No employee matches "${by.name}".` } };
  return { ok: false, result: clarify("employee", by.name, matches.map(personCandidate)) };
}

export async function resolveCourse(context: ToolContext, by: { id?: string; title?: string }): Promise<Resolved<CourseRef>> {
  if (by.id) {
    const course = UUID.test(by.id) ? await findCourseRef(context.db, context.orgId, by.id) : undefined;
    return course ? { ok: true, value: course } : { ok: false, result: { error: `No course with id ${by.id} in this organisation.` } };
  }
  if (!by.title?.trim()) return { ok: false, result: { error: "Give the course's id or title." } };
  const matches = await matchCoursesByTitle(context.db, context.orgId, by.title);
  if (matches.length === 1) return { ok: true, value: matches[0]! };
  if (matches.length === 0) return { ok: false, result: { error: `No course matches "${by.title}".` } };
  return { ok: false, result: clarify("course", by.title, matches) };
}

export async function resolveSkill(context: ToolContext, name: string): Promise<Resolved<SkillRef>> {
  const matches = await matchSkillsByName(context.db, context.orgId, name);
  if (matches.length === 1) return { ok: true, value: matches[0]! };
  if (matches.length === 0) return { ok: false, result: { error: `No skill matches "${name}".` } };
  return { ok: false, result: clarify("skill", name, matches) };
}
