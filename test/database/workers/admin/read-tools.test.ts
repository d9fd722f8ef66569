/**
 * The admin read tools that had no test of their own — skills matrix, skill gaps, course stats,
 * alerts, mentorship suggestions — run through `runToolCall` against the real database, on two
 * organisations seeded with the same shape and different people and figures: each returns the
 * values its organisation's rows imply, and nothing of the other organisation (an id or title of
 * the other's course is "not found").
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { runToolCall } from "../../../../workers/admin/tools";
import type { ToolContext } from "../../../../workers/admin/tools/tool";
import { databaseSuite } from "../../../support/database";

const DAY = 86_400_000;

interface SeededOrg {
  orgId: string;
  adminId: string;
  courseId: string;
  courseTitle: string;
  names: { mentor: string; learner: string; middle: string; gone: string };
  skills: { negotiation: string; forklift: string };
}

describe("admin read tools on two organisations (matrix, gaps, course stats, alerts, mentorship)", function () {
  const lane = databaseSuite(this, { timeoutMs: 30_000 });
  const db = () => lane.deps.db;
  let a: SeededOrg;
  let b: SeededOrg;

  /**
   * One organisation: a mentor (Negotiation 5), a learner (Negotiation 1, overdue, two failed
   * attempts and one passed), a middle (Forklift 3, completed at 90 %), a deactivated expert
   * (Forklift 5: counted nowhere). `tag` keeps names and titles apart between the two orgs.
   */
  async function seed(tag: string): Promise<SeededOrg> {
    const orgId = (await lane.build.buildOrg({ name: `Read tools ${tag}` })).id;
    const person = async (name: string, role = "employee", active = true) => {
      const [row] = await db()("users")
        .insert({
          org_id: orgId,
          email: `${tag.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`,
          name,
          role,
          department: "Sales",
          is_active: active,
          locale: "en",
        })
        .returning("id");
      return row.id as string;
    };
    const names = { mentor: `Mara Mentor ${tag}`, learner: `Leo Learner ${tag}`, middle: `Mia Middle ${tag}`, gone: `Gus Gone ${tag}` };
    const adminId = await person(`Ada Admin ${tag}`, "admin");
    const mentor = await person(names.mentor);
    const learner = await person(names.learner);
    const middle = await person(names.middle);
    const gone = await person(names.gone, "employee", false);
    const [commercial, operations] = await db()("skill_categories")
      .insert([
        { org_id: orgId, name: "Commercial" },
        { org_id: orgId, name: "Operations" },
      ])
      .returning("id");
    const skills = { negotiation: `Negotiation ${tag}`, forklift: `Forklift safety ${tag}` };
    const [negotiation, forklift] = await db()("skills")
      .insert([
        { org_id: orgId, name: skills.negotiation, category_id: commercial.id },
        { org_id: orgId, name: skills.forklift, category_id: operations.id },
      ])
      .returning("id");
    await db()("user_skills").insert([
      { org_id: orgId, user_id: mentor, skill_id: negotiation.id, level: 5 },
      { org_id: orgId, user_id: learner, skill_id: negotiation.id, level: 1 },
      { org_id: orgId, user_id: middle, skill_id: forklift.id, level: 3 },
      { org_id: orgId, user_id: gone, skill_id: forklift.id, level: 5 },
    ]);
    const courseTitle = `Safety basics ${tag}`;
    const [course] = await db()("courses").insert({ org_id: orgId, title: courseTitle, language: "en", status: "published" }).returning("id");
    const [module] = await db()("modules").insert({ org_id: orgId, course_id: course.id, title: "Module 1", position: 1 }).returning("id");
    const [lesson] = await db()("lessons")
      .insert({ org_id: orgId, course_id: course.id, module_id: module.id, title: `Lifting ${tag}`, position: 1 })
      .returning("id");
    const [exercise] = await db()("exercises")
      .insert({ org_id: orgId, lesson_id: lesson.id, prompt: `How heavy ${tag}?`, kind: "open" })
      .returning("id");
    const now = Date.now();
    await db()("enrollments").insert([
      { org_id: orgId, user_id: learner, course_id: course.id, status: "in_progress", score: 0.6, deadline: new Date(now - 2 * DAY) },
      { org_id: orgId, user_id: middle, course_id: course.id, status: "completed", score: 0.9, deadline: new Date(now - 5 * DAY) },
      { org_id: orgId, user_id: mentor, course_id: course.id, status: "not_started", deadline: new Date(now + 3 * DAY) },
    ]);
    await db()("exercise_attempts").insert([
      { org_id: orgId, exercise_id: exercise.id, user_id: learner, passed: false, score: 0.2 },
      { org_id: orgId, exercise_id: exercise.id, user_id: learner, passed: false, score: 0.3 },
      { org_id: orgId, exercise_id: exercise.id, user_id: learner, passed: true, score: 0.8 },
    ]);
    return { orgId, adminId, courseId: course.id, courseTitle, names, skills };
  }

  before(async () => {
    a = await seed("A");
    b = await seed("B");
  });

  const context = (org: SeededOrg): ToolContext => ({
    db: db(),
    orgId: org.orgId,
    userId: org.adminId,
    language: "en",
    today: new Date().toISOString().slice(0, 10),
    propose: async () => {
      throw new Error("read tools never propose");
    },
  });
  const run = (org: SeededOrg, name: string, args: Record<string, unknown>) =>
    runToolCall(context(org), { id: `call-${randomUUID()}`, name, arguments: JSON.stringify(args) });
  const call = async (org: SeededOrg, name: string, args: Record<string, unknown> = {}) => {
    const done = await run(org, name, args);
    expect(done.ok, done.error).to.equal(true);
    return JSON.parse(done.json);
  };
  const refused = async (org: SeededOrg, name: string, args: Record<string, unknown>) => {
    const done = await run(org, name, args);
    expect(done.ok).to.equal(false);
    return JSON.parse(done.json);
  };
  const mentions = (value: unknown, org: SeededOrg) => {
    const text = JSON.stringify(value);
    return [...Object.values(org.names), org.courseTitle, ...Object.values(org.skills)].filter((name) => text.includes(name));
  };

  it("get_skills_matrix: each active employee's level per skill of the org, by category on request", async () => {
    const result = await call(a, "get_skills_matrix");
    expect(result.matrix.map((r: any) => [r.employee, r.skill, r.category, r.level])).to.deep.equal([
      [a.names.learner, a.skills.negotiation, "Commercial", 1],
      [a.names.mentor, a.skills.negotiation, "Commercial", 5],
      [a.names.middle, a.skills.forklift, "Operations", 3],
    ]);
    expect(result.total).to.equal(3);
    const operations = await call(a, "get_skills_matrix", { category: "operations" });
    expect(operations.matrix.map((r: any) => r.employee)).to.deep.equal([a.names.middle]);
    expect(mentions(result, b)).to.deep.equal([]);
  });

  it("get_skill_gaps: the skills with fewer experts than the threshold, a deactivated expert not counted", async () => {
    const result = await call(a, "get_skill_gaps");
    expect(result).to.include({ threshold: 1, expert_level: 4, skills_checked: 2 });
    expect(result.gaps).to.deep.equal([{ skill: a.skills.forklift, category: "Operations", experts: 0, holders: 1 }]);
    const stricter = await call(a, "get_skill_gaps", { threshold: 2 });
    expect(stricter.gaps.map((g: any) => [g.skill, g.experts])).to.deep.equal([
      [a.skills.forklift, 0],
      [a.skills.negotiation, 1],
    ]);
    expect(mentions(stricter, b)).to.deep.equal([]);
  });

  it("get_course_stats: enrolled, completion, average score, overdue and the most failed exercise; another org's course is not found", async () => {
    const result = await call(a, "get_course_stats", { course_title: a.courseTitle });
    expect(result.course).to.include({ id: a.courseId });
    expect(result).to.deep.include({
      enrolled: 3,
      by_status: { completed: 1, in_progress: 1, not_started: 1 },
      completion_rate_pct: 33,
      average_score_pct: 75,
      overdue: 1,
    });
    expect(result.most_failed_exercises).to.deep.equal([{ lesson: "Lifting A", exercise: "How heavy A?", failed_attempts: 2, attempts: 3 }]);
    expect((await call(a, "get_course_stats", { course_id: a.courseId })).enrolled).to.equal(3);

    // Organisation B cannot read A's course, by id or by title.
    expect(await refused(b, "get_course_stats", { course_id: a.courseId })).to.deep.equal({ error: `No course with id ${a.courseId} in this organisation.` });
    expect(await refused(b, "get_course_stats", { course_title: a.courseTitle })).to.deep.equal({ error: `No course matches "${a.courseTitle}".` });
  });

  it("get_alerts: overdue and due-soon enrollments, repeated failures, and who needs attention", async () => {
    const result = await call(a, "get_alerts");
    expect(result.deadline_risks.map((r: any) => [r.employee, r.course, r.overdue])).to.deep.equal([
      [a.names.learner, a.courseTitle, true],
      [a.names.mentor, a.courseTitle, false],
    ]);
    expect(result.repeated_failures).to.deep.equal([{ employee: a.names.learner, course: a.courseTitle, lesson: "Lifting A", failed_attempts: 2 }]);
    expect(result.needs_attention).to.deep.equal([
      { employee: a.names.learner, reasons: [`overdue: ${a.courseTitle}`, `failed 2× in ${a.courseTitle} / Lifting A`] },
      { employee: a.names.mentor, reasons: [`due soon: ${a.courseTitle}`] },
    ]);
    // A narrower window drops the one due in three days; the overdue one stays.
    const narrow = await call(a, "get_alerts", { due_within_days: 1 });
    expect(narrow.deadline_risks.map((r: any) => r.employee)).to.deep.equal([a.names.learner]);
    expect(mentions(result, b)).to.deep.equal([]);
  });

  it("get_mentorship_suggestions: expert and beginner on the same skill of the same org, largest gap first", async () => {
    const result = await call(a, "get_mentorship_suggestions");
    expect(result).to.deep.equal({
      pairs: [
        {
          skill: a.skills.negotiation,
          mentor: a.names.mentor,
          mentor_department: "Sales",
          mentor_level: 5,
          mentee: a.names.learner,
          mentee_department: "Sales",
          mentee_level: 1,
        },
      ],
      total: 1,
    });
    const fromB = await call(b, "get_mentorship_suggestions");
    expect(fromB.pairs.map((p: any) => [p.mentor, p.mentee])).to.deep.equal([[b.names.mentor, b.names.learner]]);
    expect(mentions(fromB, a)).to.deep.equal([]);
  });
});
