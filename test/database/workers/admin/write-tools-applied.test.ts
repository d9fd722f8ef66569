/**
 * The admin tools end to end on the real database, on two organisations seeded alike: a
 * `verify_skill` and an `archive_course` proposed by the tool, confirmed by the admin's command
 * and run by the real `admin-actions` runner are applied (the level, the course and its unfinished
 * enrollments), audited item by item and told to the conversation; `list_employees` answers each
 * of its filters and `get_employee_detail` one person, and neither ever returns a person of the
 * other organisation, whatever name or id the model passes.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { proposeAction } from "../../../../commands/action-run";
import { confirmAction } from "../../../../commands/confirm-action";
import { storeQuestion } from "../../../../db/queries/chat-questions";
import { runToolCall } from "../../../../workers/admin/tools";
import { estimateWork, type ProposedAction } from "../../../../workers/admin/tools/proposal";
import type { StoredProposal, ToolContext } from "../../../../workers/admin/tools/tool";
import { executeActionHandler } from "../../../../workers/admin/execute-action.handler";
import { waitFor } from "../../../harness/client";
import { databaseSuite } from "../../../support/database";

interface Org {
  orgId: string;
  adminId: string;
  sessionId: string;
  people: { sales: string; support: string; gone: string; boss: string };
  names: { sales: string; support: string; gone: string; boss: string };
  skill: string;
  courseId: string;
  courseTitle: string;
}

describe("admin tools applied end to end, and the people tools' filters (two organisations)", function () {
  const lane = databaseSuite(this, { timeoutMs: 30_000 });
  const db = () => lane.deps.db;
  let a: Org;
  let b: Org;

  async function seed(tag: string): Promise<Org> {
    const orgId = (await lane.build.buildOrg({ name: `Write tools ${tag}` })).id;
    const person = async (name: string, department: string, role = "employee", active = true) =>
      (
        await lane.build.buildPerson(orgId, {
          name,
          role: role as "admin" | "employee",
          email: `${tag.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`,
          department,
          is_active: active,
        })
      ).id;
    const names = { sales: `Sara Seller ${tag}`, support: `Sam Helper ${tag}`, gone: `Gina Gone ${tag}`, boss: `Bea Boss ${tag}` };
    const people = {
      sales: await person(names.sales, "Sales"),
      support: await person(names.support, "Support"),
      gone: await person(names.gone, "Sales", "employee", false),
      boss: await person(names.boss, "Sales", "admin"),
    };
    const skill = `Negotiation ${tag}`;
    const [skillRow] = await db()("skills").insert({ org_id: orgId, name: skill }).returning("id");
    await db()("user_skills").insert({ org_id: orgId, user_id: people.sales, skill_id: skillRow.id, level: 2 });
    const courseTitle = `Old onboarding ${tag}`;
    const [course] = await db()("courses").insert({ org_id: orgId, title: courseTitle, language: "en", status: "published" }).returning("id");
    await db()("enrollments").insert([
      { org_id: orgId, user_id: people.sales, course_id: course.id, status: "in_progress", score: 0.5 },
      { org_id: orgId, user_id: people.support, course_id: course.id, status: "completed", score: 0.9 },
    ]);
    const stored = await storeQuestion(
      db(),
      { orgId, userId: people.boss },
      { sessionId: undefined, agentType: "admin", title: "tools", sessionContext: undefined, turnId: randomUUID(), content: "help", metadata: {} },
    );
    return { orgId, adminId: people.boss, sessionId: stored!.sessionId, people, names, skill, courseId: course.id, courseTitle };
  }

  before(async () => {
    a = await seed("A");
    b = await seed("B");
  });

  /** The tools as a turn of `org`'s admin runs them; a write is stored as the turn's pending action. */
  const context = (org: Org): ToolContext => ({
    db: db(),
    orgId: org.orgId,
    userId: org.adminId,
    language: "en",
    today: new Date().toISOString().slice(0, 10),
    propose: async (action: ProposedAction): Promise<StoredProposal> => {
      const row = await proposeAction(
        { db: db() },
        {
          orgId: org.orgId,
          userId: org.adminId,
          sessionId: org.sessionId,
          turnId: randomUUID(),
          tool: action.tool,
          args: action.args,
          preview: action.preview,
          estimate: estimateWork(action.items),
          expiresAt: new Date(Date.now() + 3_600_000),
          items: action.items,
        },
      );
      return {
        actionId: row.id,
        status: row.status,
        preview: row.preview,
        total: row.total,
        labels: action.items.map((i) => i.label),
        expiresAt: row.expires_at.toISOString(),
      };
    },
  });
  const call = async (org: Org, name: string, args: Record<string, unknown> = {}) => {
    const done = await runToolCall(context(org), { id: `call-${randomUUID()}`, name, arguments: JSON.stringify(args) });
    return JSON.parse(done.json);
  };

  /** Confirm as the admin, then run the real runner's job body as a worker would. */
  async function confirmAndRun(org: Org, actionId: string) {
    const confirmed = await confirmAction(lane.deps, { orgId: org.orgId, actionId, confirmerId: org.adminId });
    expect(confirmed).to.not.have.property("kind", "refused");
    const deps = lane.workerDeps();
    const data = { orgId: org.orgId, actionId };
    await executeActionHandler.perform({ data, deps, log: deps.log, job: { data } as never } as never);
    // Where the product's workers run in the same process (the PGlite lane mixes suites), one of them may take the
    // queued job first and this run then finds the action no longer running: what counts is how the action ended.
    const ended = await waitFor(
      async () => {
        const row = await db()("admin_actions").where({ id: actionId, org_id: org.orgId }).first("status");
        return ["completed", "partial", "failed", "stopped"].includes(row?.status) ? row : undefined;
      },
      10_000,
      "the action's end",
    );
    return { status: ended.status };
  }
  const itemAudits = (actionId: string) => db()("audit_log").where({ action_id: actionId, action: "admin_action.item_applied" }).orderBy("id");
  const outcomeOf = (org: Org, actionId: string) =>
    db()("chat_messages").where({ session_id: org.sessionId, role: "assistant" }).whereRaw("metadata->'action_outcome'->>'action_id' = ?", [actionId]).first();

  it("verify_skill: proposed, confirmed, applied (the level), audited, and told to the conversation", async () => {
    const proposed = await call(a, "verify_skill", { employee_name: a.names.sales, skill_name: a.skill, level: 4 });
    expect(proposed.status).to.equal("pending_confirmation");
    const level = () =>
      db()("user_skills")
        .join("skills", "skills.id", "user_skills.skill_id")
        .where({ "user_skills.user_id": a.people.sales, "skills.name": a.skill })
        .first("level");
    expect((await level()).level, "nothing changes before the confirmation").to.equal(2);

    expect(await confirmAndRun(a, proposed.action_id)).to.deep.equal({ status: "completed" });
    expect((await level()).level).to.equal(4);
    const audits = await itemAudits(proposed.action_id);
    expect(audits).to.have.length(1);
    expect(audits[0]).to.include({ org_id: a.orgId, target_type: "user_skill", confirmed_by: a.adminId });
    expect(audits[0].before).to.deep.equal({ level: 2 });
    expect(audits[0].after).to.deep.equal({ level: 4 });
    expect((await outcomeOf(a, proposed.action_id))?.content).to.include("has finished: the change was applied");
    // The other organisation's person of the same shape is untouched.
    const theirs = await db()("user_skills").where({ user_id: b.people.sales }).first("level");
    expect(theirs.level).to.equal(2);
  });

  it("archive_course: proposed, confirmed, applied (the course and its unfinished enrollment), audited", async () => {
    const proposed = await call(a, "archive_course", { course_title: a.courseTitle });
    expect(proposed.status).to.equal("pending_confirmation");
    expect(await confirmAndRun(a, proposed.action_id)).to.deep.equal({ status: "completed" });
    expect((await db()("courses").where({ id: a.courseId }).first("status")).status).to.equal("archived");
    const enrollments = await db()("enrollments").where({ course_id: a.courseId }).select("user_id", "status");
    expect(enrollments.every((e) => e.status === "completed")).to.equal(true);
    const audits = await itemAudits(proposed.action_id);
    expect(audits.map((row) => row.target_type).sort()).to.deep.equal(["course", "enrollment"]);
    expect((await db()("courses").where({ id: b.courseId }).first("status")).status, "the other organisation's course").to.equal("published");
    // Another organisation's course, by id or by title, is not found: nothing to propose.
    expect((await call(a, "archive_course", { course_id: b.courseId })).error).to.be.a("string");
    expect((await call(a, "archive_course", { course_title: b.courseTitle })).error).to.be.a("string");
  });

  it("list_employees answers each filter with its organisation's people only", async () => {
    const namesOf = (result: { employees: Array<{ name: string }> }) => result.employees.map((e) => e.name).sort();
    expect(namesOf(await call(a, "list_employees"))).to.deep.equal(Object.values(a.names).sort());
    expect(namesOf(await call(a, "list_employees", { search: "Seller" }))).to.deep.equal([a.names.sales]);
    expect(namesOf(await call(a, "list_employees", { role: "admin" }))).to.deep.equal([a.names.boss]);
    expect(namesOf(await call(a, "list_employees", { role: "employee" }))).to.deep.equal([a.names.gone, a.names.support, a.names.sales].sort());
    expect(namesOf(await call(a, "list_employees", { active: false }))).to.deep.equal([a.names.gone]);
    expect(namesOf(await call(a, "list_employees", { active: true, department: "Sales" }))).to.deep.equal([a.names.boss, a.names.sales].sort());
    expect(namesOf(await call(a, "list_employees", { department: "Support" }))).to.deep.equal([a.names.support]);
    // Searching for the other organisation's people by name or email finds nobody.
    expect((await call(a, "list_employees", { search: b.names.sales })).employees).to.deep.equal([]);
    const everyone = await call(b, "list_employees");
    expect(everyone.employees.every((e: { name: string }) => e.name.endsWith(" B"))).to.equal(true);
  });

  it("get_employee_detail gives one person of the organisation, by name or id, and never another organisation's", async () => {
    const byName = await call(a, "get_employee_detail", { employee_name: a.names.sales });
    expect(byName.employee).to.include({ id: a.people.sales, name: a.names.sales, department: "Sales", active: true });
    expect(byName.skills.map((s: { skill?: string; name?: string }) => s.skill ?? s.name)).to.include(a.skill);
    expect(byName.enrollments.map((e: { course: string }) => e.course)).to.deep.equal([a.courseTitle]);
    const byId = await call(a, "get_employee_detail", { employee_id: a.people.support });
    expect(byId.employee).to.include({ name: a.names.support });

    const theirsById = await call(a, "get_employee_detail", { employee_id: b.people.sales });
    expect(theirsById.employee, JSON.stringify(theirsById)).to.equal(undefined);
    expect(theirsById.error).to.be.a("string");
    const theirsByName = await call(a, "get_employee_detail", { employee_name: b.names.sales });
    expect(theirsByName.employee).to.equal(undefined);
    expect(JSON.stringify(theirsByName)).to.not.include(b.people.sales);
  });
});
