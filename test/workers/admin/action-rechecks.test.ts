/**
 * What execution and resume re-check, and what the admin is asked to confirm: a deactivation
 * whose target was promoted to admin in between fails with the reason; a resume past the
 * action's expiry is 409 ACTION_EXPIRED, and the audit rows of the items a resume runs name the
 * admin who resumed; the "reply yes" line quotes the frozen preview, the count and the first
 * targets, written by code whatever the model said.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api } from "../../harness/client";
import { startStack, type Stack } from "../../support/stack";
import { addEmployees, askAdmin, cleanUp, freshUser, scriptTurn, unique, waitForAction, type Person } from "./helpers";

describe("admin actions: re-checks at execution, resume and the confirmation line", function () {
  this.timeout(60_000);
  let stack: Stack;
  let admin: Person;

  before(startStack((started) => (stack = started)));
  beforeEach(async () => (admin = await freshUser(stack, { role: "admin", name: "Recheck Admin" })));
  afterEach(() => {
    stack.llm.setResponder(null);
    stack.llm.reset();
    return cleanUp(stack);
  });

  const db = () => stack.server.deps.db;
  const confirm = (actionId: string, by: Person = admin) => api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: by.token });
  const resume = (actionId: string, by: Person) => api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/resume`, { token: by.token });

  it("does not deactivate someone promoted to admin between proposal and confirmation: the item fails with the reason", async () => {
    const [target] = await addEmployees(stack, `Ops ${unique()}`, ["Pat Promoted"]);
    scriptTurn(stack, { calls: [{ name: "deactivate_employee", arguments: { employee_id: target!.id } }], answer: "Shall I?" });
    const turn = await askAdmin(stack, admin, "Deactivate Pat Promoted");
    expect(turn.pending, JSON.stringify(turn.toolResults)).to.exist;
    await db()("users").where({ id: target!.id }).update({ role: "admin" });

    expect((await confirm(turn.pending.actionId)).status).to.equal(202);
    const finished = await waitForAction(stack, admin, turn.pending.actionId, ["completed", "partial", "failed"]);
    expect(finished.action).to.include({ status: "failed", done: 0, failed: 1 });
    expect(finished.items[0].error).to.match(/Pat Promoted is now an admin/);
    expect(await db()("users").where({ id: target!.id }).first()).to.include({ is_active: true, role: "admin" });
    expect(await db()("audit_log").where({ action_id: turn.pending.actionId })).to.have.length(0);
  });

  it("fails an archive_course item when someone else archived the course in between", async () => {
    const [course] = await db()("courses")
      .insert({ org_id: DEMO_IDS.orgId, title: `Recheck Course ${unique()}`, status: "published" })
      .returning(["id", "title"]);
    try {
      scriptTurn(stack, { calls: [{ name: "archive_course", arguments: { course_id: course.id } }], answer: "Archive it?" });
      const turn = await askAdmin(stack, admin, `Archive ${course.title}`);
      expect(turn.pending, JSON.stringify(turn.toolResults)).to.exist;
      await db()("courses").where({ id: course.id }).update({ status: "archived" });
      expect((await confirm(turn.pending.actionId)).status).to.equal(202);
      const finished = await waitForAction(stack, admin, turn.pending.actionId, ["completed", "partial", "failed"]);
      expect(finished.action.status).to.equal("failed");
      expect(finished.items.at(-1).error).to.match(/already archived after the action was proposed/);
    } finally {
      await db()("courses").where({ id: course.id }).delete();
    }
  });

  it("refuses a resume past the action's expiry with 409 ACTION_EXPIRED; a resume's audit rows name the admin who resumed", async () => {
    const department = `Resume Desk ${unique()}`;
    const team = await addEmployees(stack, department, ["Ida Stays", "Jon Leaves"]);
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }], answer: "Confirm?" });
    const turn = await askAdmin(stack, admin, `Assign the warehouse safety course to ${department}`);
    const actionId = turn.pending.actionId as string;
    const leaver = team.find((t) => t.name === "Jon Leaves")!;
    await db()("users").where({ id: leaver.id }).update({ is_active: false });
    expect((await confirm(actionId)).status).to.equal(202);
    await waitForAction(stack, admin, actionId, ["partial"]);
    await db()("users").where({ id: leaver.id }).update({ is_active: true });

    const { expires_at: expiresAt } = await db()("admin_actions").where({ id: actionId }).first("expires_at");
    await db()("admin_actions")
      .where({ id: actionId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await resume(actionId, admin);
    expect(expired.status).to.equal(409);
    expect(expired.body.error.code).to.equal("ACTION_EXPIRED");
    expect((await db()("admin_actions").where({ id: actionId }).first()).status).to.equal("partial", "nothing changed");

    await db()("admin_actions").where({ id: actionId }).update({ expires_at: expiresAt });
    const resumer = await freshUser(stack, { role: "admin", name: "Second Admin" });
    expect((await resume(actionId, resumer)).status).to.equal(202);
    await waitForAction(stack, admin, actionId, ["completed"]);
    const audit = await db()("audit_log").where({ action_id: actionId }).select("target_id", "actor_id", "confirmed_by", "resumed_by");
    const ofLeaver = audit.find((row) => row.target_id.startsWith(leaver.id))!;
    const ofStayer = audit.find((row) => !row.target_id.startsWith(leaver.id))!;
    expect(ofLeaver).to.include({ actor_id: admin.id, confirmed_by: admin.id, resumed_by: resumer.id });
    expect(ofStayer).to.include({ confirmed_by: admin.id, resumed_by: null });
  });

  it("ends a proposal with a line quoting the frozen preview, the count and the first targets, whatever the model said", async () => {
    const department = `Quote Team ${unique()}`;
    await addEmployees(stack, department, ["Ava Quote", "Bea Quote", "Cal Quote", "Dee Quote", "Eli Quote"]);
    scriptTurn(stack, {
      calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }],
      answer: "Done! Everyone is enrolled.",
    });
    const turn = await askAdmin(stack, admin, `Assign the warehouse safety course to ${department}`);
    const action = await db()("admin_actions").where({ id: turn.pending.actionId }).first();
    const content = turn.answer!.content;
    expect(content).to.include(`Proposed: “${action.preview}”`);
    expect(content).to.include("5 items: Ava Quote");
    expect(content).to.match(/Ava Quote \([^)]+\): enrol; Bea Quote \([^)]+\): enrol; Cal Quote \([^)]+\): enrol and 2 more\. Reply “yes” to run exactly this/);
  });
});
