/**
 * Fixed ids of the demo rows, derived from each row's position in the content lists, so tests
 * and fixtures can name demo rows without a database round trip and reseeding never mints new
 * ids. Content lists are therefore append-only.
 */
import { DEMO_COURSES, type CourseKey } from "./demo-courses";
import { DEMO_DOCUMENTS, type DocumentKey } from "./demo-documents";
import type { ExerciseRef } from "./demo-people";

/** `5eed0000-<kind>-4000-8000-<n>`: valid v4-shaped UUIDs that are recognisable in logs. */
export function fixedId(kind: number, n: number): string {
  return `5eed0000-${kind.toString(16).padStart(4, "0")}-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

const courseIndex = (key: CourseKey): number => DEMO_COURSES.findIndex((course) => course.key === key);
export const moduleId = (c: number, m: number): string => fixedId(5, (c + 1) * 100 + m + 1);
export const lessonId = (c: number, m: number, l: number): string => fixedId(6, (c + 1) * 10_000 + (m + 1) * 100 + l + 1);
export const exerciseId = (c: number, m: number, l: number, e: number): string => fixedId(7, ((c + 1) * 10_000 + (m + 1) * 100 + l + 1) * 100 + e + 1);
export const exerciseRefId = (ref: ExerciseRef): string => exerciseId(courseIndex(ref.course), ref.module, ref.lesson, ref.exercise);

/** The ids the seed writes, known without touching the database (tests, fixtures, docs). */
export const DEMO_IDS = {
  orgId: fixedId(1, 1),
  slug: "acme",
  adminId: fixedId(2, 1),
  employeeId: fixedId(2, 2),
  courseIds: Object.fromEntries(DEMO_COURSES.map((course, i) => [course.key, fixedId(4, i + 1)])) as Record<CourseKey, string>,
  documentIds: Object.fromEntries(DEMO_DOCUMENTS.map((doc, i) => [doc.key, fixedId(3, i + 1)])) as Record<DocumentKey, string>,
} as const;
