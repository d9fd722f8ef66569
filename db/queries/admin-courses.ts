/**
 * The admin assistant's view of courses, enrollments and alerts, always within one org.
 * Scores are stored 0–1; they leave here as percentages rounded to whole numbers.
 */
import type { Db } from "../knex";
import { containsPattern, foldName, foldedSql } from "./name-match";

export interface CourseRef {
  id: string;
  title: string;
  status: string;
}

export interface CourseSummary extends CourseRef {
  language: string;
  enrolled: number;
  completed: number;
  average_score_pct: number | null;
}

const pct = (value: unknown): number | null => (value === null || value === undefined ? null : Math.round(Number(value) * 100));

export async function listCourses(db: Db, orgId: string, status?: string): Promise<CourseSummary[]> {
  const rows = await db.raw(
    `SELECT c.id, c.title, c.status, c.language,
            COUNT(e.id)::int AS enrolled,
            COUNT(e.id) FILTER (WHERE e.status = 'completed')::int AS completed,
            AVG(e.score) AS average_score
       FROM courses c
       LEFT JOIN enrollments e ON e.course_id = c.id AND e.org_id = c.org_id
      WHERE c.org_id = ? ${status ? "AND c.status = ?" : ""}
      GROUP BY c.id
      ORDER BY c.title`,
    status ? [orgId, status] : [orgId],
  );
  return rows.rows.map((row: Record<string, unknown>) => ({ ...row, average_score: undefined, average_score_pct: pct(row.average_score) }));
}

export async function matchCoursesByTitle(db: Db, orgId: string, title: string, limit = 10): Promise<CourseRef[]> {
  const exact = await db("courses")
    .where({ org_id: orgId })
    .andWhereRaw(`${foldedSql("title")} = ?`, [foldName(title)])
    .select("id", "title", "status")
    .limit(limit);
  if (exact.length > 0) return exact;
  return db("courses")
    .where({ org_id: orgId })
    .andWhereRaw(`${foldedSql("title")} LIKE ?`, [containsPattern(title)])
    .select("id", "title", "status")
    .orderBy("title")
    .limit(limit);
}

export async function findCourseRef(db: Db, orgId: string, courseId: string): Promise<CourseRef | undefined> {
  return db("courses").where({ org_id: orgId, id: courseId }).first("id", "title", "status");
}

export interface CourseStats {
  enrolled: number;
  by_status: Record<string, number>;
  completion_rate_pct: number | null;
  average_score_pct: number | null;
  overdue: number;
  most_failed_exercises: Array<{ lesson: string; exercise: string; failed_attempts: number; attempts: number }>;
}

export async function courseStats(db: Db, orgId: string, courseId: string): Promise<CourseStats> {
  const totals = await db.raw(
    `SELECT COUNT(*)::int AS enrolled,
            COUNT(*) FILTER (WHERE status = 'completed')::int AS completed,
            COUNT(*) FILTER (WHERE status = 'in_progress')::int AS in_progress,
            COUNT(*) FILTER (WHERE status = 'not_started')::int AS not_started,
            COUNT(*) FILTER (WHERE status <> 'completed' AND deadline < now())::int AS overdue,
            AVG(score) AS average_score
       FROM enrollments WHERE org_id = ? AND course_id = ?`,
    [orgId, courseId],
  );
  const t = totals.rows[0];
  const failed = await db.raw(
    `SELECT l.title AS lesson, x.prompt AS exercise,
            COUNT(*) FILTER (WHERE NOT a.passed)::int AS failed_attempts, COUNT(*)::int AS attempts
       FROM exercise_attempts a
       JOIN exercises x ON x.id = a.exercise_id
       JOIN lessons l ON l.id = x.lesson_id
      WHERE a.org_id = ? AND l.course_id = ?
      GROUP BY l.title, x.prompt
     HAVING COUNT(*) FILTER (WHERE NOT a.passed) > 0
      ORDER BY failed_attempts DESC, lesson
      LIMIT 5`,
    [orgId, courseId],
  );
  return {
    enrolled: t.enrolled,
    by_status: { completed: t.completed, in_progress: t.in_progress, not_started: t.not_started },
    completion_rate_pct: t.enrolled > 0 ? Math.round((100 * t.completed) / t.enrolled) : null,
    average_score_pct: pct(t.average_score),
    overdue: t.overdue,
    most_failed_exercises: failed.rows,
  };
}

export interface DeadlineRisk {
  employee: string;
  department: string | null;
  course: string;
  status: string;
  deadline: Date;
  overdue: boolean;
}

export interface RepeatedFailure {
  employee: string;
  course: string;
  lesson: string;
  failed_attempts: number;
}

/** Unfinished enrollments past or within `withinDays` of their deadline, active people only. */
export async function deadlineRisks(db: Db, orgId: string, withinDays: number): Promise<DeadlineRisk[]> {
  const rows = await db.raw(
    `SELECT u.name AS employee, u.department, c.title AS course, e.status, e.deadline, e.deadline < now() AS overdue
       FROM enrollments e
       JOIN users u ON u.id = e.user_id AND u.is_active
       JOIN courses c ON c.id = e.course_id
      WHERE e.org_id = ? AND e.status <> 'completed' AND e.deadline IS NOT NULL
        AND e.deadline < now() + make_interval(days => ?)
      ORDER BY e.deadline`,
    [orgId, withinDays],
  );
  return rows.rows;
}

/** People who failed the same lesson's exercises at least `minFailures` times in the last 30 days. */
export async function repeatedFailures(db: Db, orgId: string, minFailures: number): Promise<RepeatedFailure[]> {
  const rows = await db.raw(
    `SELECT u.name AS employee, c.title AS course, l.title AS lesson, COUNT(*)::int AS failed_attempts
       FROM exercise_attempts a
       JOIN users u ON u.id = a.user_id AND u.is_active
       JOIN exercises x ON x.id = a.exercise_id
       JOIN lessons l ON l.id = x.lesson_id
       JOIN courses c ON c.id = l.course_id
      WHERE a.org_id = ? AND NOT a.passed AND a.created_at > now() - interval '30 days'
      GROUP BY u.name, c.title, l.title
     HAVING COUNT(*) >= ?
      ORDER BY failed_attempts DESC, u.name`,
    [orgId, minFailures],
  );
  return rows.rows;
}

export interface EnrollmentRef {
  id: string;
  user_id: string;
  course_id: string;
  status: string;
  deadline: Date | null;
}

export async function enrollmentsOfPeople(db: Db, orgId: string, courseId: string, userIds: string[]): Promise<EnrollmentRef[]> {
  if (userIds.length === 0) return [];
  return db("enrollments").where({ org_id: orgId, course_id: courseId }).whereIn("user_id", userIds).select("id", "user_id", "course_id", "status", "deadline");
}

/** Enrollments of a course that are not completed, with the learner's name (for archive previews). */
export async function openEnrollmentsOfCourse(db: Db, orgId: string, courseId: string): Promise<Array<EnrollmentRef & { name: string }>> {
  return db("enrollments as e")
    .join("users as u", "u.id", "e.user_id")
    .where({ "e.org_id": orgId, "e.course_id": courseId })
    .whereNot("e.status", "completed")
    .select("e.id", "e.user_id", "e.course_id", "e.status", "e.deadline", "u.name")
    .orderBy("u.name");
}
