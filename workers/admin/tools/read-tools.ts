/**
 * The nine read tools. They run at once, inside the caller's organisation, and return compact
 * rows (names, not ids, unless an id is needed for a follow-up call). Lists page with
 * `limit`/`offset` and always say how many there are in total.
 */
import { z } from "zod";
import { courseStats, deadlineRisks, listCourses, repeatedFailures } from "../../../db/queries/admin-courses";
import {
  EXPERT_LEVEL,
  holdersOfSkills,
  listDepartments,
  listEmployees,
  matchSkillsByName,
  mentorshipPairs,
  recentActivity,
  skillCoverage,
  skillsMatrix,
} from "../../../db/queries/admin-people";
import { enrollmentFacts, skillFacts } from "../../../db/queries/learner";
import { resolveCourse, resolvePerson } from "./resolve";
import { defineTool, idArgument, toolError } from "./tool";

const limit = z.number().int().min(1).max(50).default(25).describe("Page size (at most 50)");
const offset = z.number().int().min(0).default(0).describe("Rows to skip, for the next page");
const level = z.number().int().min(1).max(5);

const page = <T>(rows: T[], total: number, at: number) => ({
  total,
  returned: rows.length,
  offset: at,
  ...(at + rows.length < total
    ? { next_offset: at + rows.length, note: `Showing ${rows.length} of ${total}; call again with offset ${at + rows.length} for more.` }
    : {}),
});

const day = (value: Date | string | null) => (value ? new Date(value).toISOString().slice(0, 10) : null);

export const listEmployeesTool = defineTool({
  name: "list_employees",
  description:
    "List employees with role, department, active status, active courses and skill count. Filter by search (name or email), role, active, department.",
  kind: "read",
  schema: z.object({
    search: z.string().max(100).optional().describe("Part of a name or email"),
    role: z.enum(["admin", "employee"]).optional(),
    active: z.boolean().optional().describe("true: only active accounts; false: only deactivated"),
    department: z.string().max(100).optional().describe("Department name, e.g. Sales"),
    limit,
    offset,
  }),
  async run(context, args) {
    const { rows, total } = await listEmployees(context.db, context.orgId, { ...args });
    const result: Record<string, unknown> = {
      employees: rows.map((r) => ({
        id: r.id,
        name: r.name,
        email: r.email,
        role: r.role,
        department: r.department,
        job_title: r.job_title,
        active: r.is_active,
        active_courses: r.active_courses,
        skills: r.skills_count,
      })),
      ...page(rows, total, args.offset),
    };
    if (total === 0 && args.department) result.known_departments = await listDepartments(context.db, context.orgId);
    return result;
  },
});

export const getEmployeeDetailTool = defineTool({
  name: "get_employee_detail",
  description: "One employee in detail, by id or name: skills with levels (1-5), course enrollments with progress and deadlines, recent exercise activity.",
  kind: "read",
  schema: z.object({ employee_id: idArgument("an employee").optional(), employee_name: z.string().max(100).optional() }),
  async run(context, args) {
    const person = await resolvePerson(context, { id: args.employee_id, name: args.employee_name });
    if (!person.ok) return person.result;
    const { id, name, email, department, role, is_active } = person.value;
    const [skills, enrollments, activity] = await Promise.all([
      skillFacts(context.db, context.orgId, id),
      enrollmentFacts(context.db, context.orgId, id),
      recentActivity(context.db, context.orgId, id, 10),
    ]);
    return {
      employee: { id, name, email, department, role, active: is_active },
      skills,
      enrollments: enrollments.map((e) => ({
        course: e.title,
        status: e.status,
        deadline: day(e.deadline),
        score_pct: e.score === null ? null : Math.round(Number(e.score) * 100),
        modules_completed: `${e.completed_modules}/${e.total_modules}`,
      })),
      recent_activity: activity.map((a) => ({ date: day(a.at), course: a.course, lesson: a.lesson, passed: a.passed })),
    };
  },
});

export const getSkillsMatrixTool = defineTool({
  name: "get_skills_matrix",
  description: "The skills matrix: each active employee's level (1-5) per skill. Optional filter by skill category.",
  kind: "read",
  schema: z.object({ category: z.string().max(100).optional(), limit: z.number().int().min(1).max(200).default(100), offset }),
  async run(context, args) {
    const rows = await skillsMatrix(context.db, context.orgId, args.category);
    const shown = rows.slice(args.offset, args.offset + args.limit);
    return {
      matrix: shown.map((r) => ({ employee: r.employee, department: r.department, skill: r.skill, category: r.category, level: r.level })),
      ...page(shown, rows.length, args.offset),
    };
  },
});

export const getSkillGapsTool = defineTool({
  name: "get_skill_gaps",
  description: `Skills with fewer than "threshold" experts (level ${EXPERT_LEVEL} or more) among active employees: the organisation's knowledge risks.`,
  kind: "read",
  schema: z.object({ threshold: z.number().int().min(1).max(100).default(1).describe("Minimum number of experts a skill should have") }),
  async run(context, args) {
    const coverage = await skillCoverage(context.db, context.orgId);
    const gaps = coverage.filter((row) => row.experts < args.threshold);
    return { threshold: args.threshold, expert_level: EXPERT_LEVEL, gaps, skills_checked: coverage.length };
  },
});

export const whoKnowsTool = defineTool({
  name: "who_knows",
  description: "Active employees who have a skill at a minimum level (1-5; 4 or more is expert). Use it to find experts or mentors.",
  kind: "read",
  schema: z.object({ skill: z.string().min(1).max(100).describe("Skill name, e.g. Returns handling"), min_level: level.default(3) }),
  async run(context, args) {
    const skills = await matchSkillsByName(context.db, context.orgId, args.skill);
    if (skills.length === 0) return toolError(`No skill matches "${args.skill}".`);
    const holders = await holdersOfSkills(
      context.db,
      context.orgId,
      skills.map((s) => s.id),
      args.min_level,
    );
    return {
      skills_matched: skills.map((s) => s.name),
      min_level: args.min_level,
      employees: holders.map((h) => ({ name: h.employee, department: h.department, skill: h.skill, level: h.level })),
      total: holders.length,
    };
  },
});

export const listCoursesTool = defineTool({
  name: "list_courses",
  description: "Courses with status, language, number enrolled, number completed and average score.",
  kind: "read",
  schema: z.object({ status: z.enum(["draft", "published", "archived"]).optional(), limit, offset }),
  async run(context, args) {
    const rows = await listCourses(context.db, context.orgId, args.status);
    const shown = rows.slice(args.offset, args.offset + args.limit);
    return {
      courses: shown.map(({ id, title, status, language, enrolled, completed, average_score_pct }) => ({
        id,
        title,
        status,
        language,
        enrolled,
        completed,
        average_score_pct,
      })),
      ...page(shown, rows.length, args.offset),
    };
  },
});

export const getCourseStatsTool = defineTool({
  name: "get_course_stats",
  description: "Statistics of one course, by id or title: enrolled, completion rate, average score, overdue learners, the exercises failed most.",
  kind: "read",
  schema: z.object({ course_id: idArgument("a course").optional(), course_title: z.string().max(200).optional() }),
  async run(context, args) {
    const course = await resolveCourse(context, { id: args.course_id, title: args.course_title });
    if (!course.ok) return course.result;
    return { course: course.value, ...(await courseStats(context.db, context.orgId, course.value.id)) };
  },
});

export const getAlertsTool = defineTool({
  name: "get_alerts",
  description:
    "Current alerts: enrollments overdue or due within a week, repeated exercise failures in the last 30 days, and the employees who need attention because of either.",
  kind: "read",
  schema: z.object({ due_within_days: z.number().int().min(0).max(90).default(7) }),
  async run(context, args) {
    const [risks, failures] = await Promise.all([
      deadlineRisks(context.db, context.orgId, args.due_within_days),
      repeatedFailures(context.db, context.orgId, 2),
    ]);
    const attention = new Map<string, string[]>();
    const note = (name: string, reason: string) => attention.set(name, [...(attention.get(name) ?? []), reason]);
    for (const r of risks) note(r.employee, `${r.overdue ? "overdue" : "due soon"}: ${r.course}`);
    for (const f of failures) note(f.employee, `failed ${f.failed_attempts}× in ${f.course} / ${f.lesson}`);
    return {
      deadline_risks: risks.map((r) => ({ ...r, deadline: day(r.deadline) })),
      repeated_failures: failures,
      needs_attention: [...attention].map(([employee, reasons]) => ({ employee, reasons })),
    };
  },
});

export const getMentorshipSuggestionsTool = defineTool({
  name: "get_mentorship_suggestions",
  description: `Mentor and mentee pairs: an expert (level ${EXPERT_LEVEL}+) and someone at level 1-2 on the same skill, largest gap first.`,
  kind: "read",
  schema: z.object({ limit: z.number().int().min(1).max(50).default(20) }),
  async run(context, args) {
    const pairs = await mentorshipPairs(context.db, context.orgId, args.limit);
    return { pairs, total: pairs.length };
  },
});

export const READ_TOOLS = [
  listEmployeesTool,
  getEmployeeDetailTool,
  getSkillsMatrixTool,
  getSkillGapsTool,
  whoKnowsTool,
  listCoursesTool,
  getCourseStatsTool,
  getAlertsTool,
  getMentorshipSuggestionsTool,
] as const;
