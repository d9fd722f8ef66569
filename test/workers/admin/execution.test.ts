/**
 * Running confirmed actions under failure: a worker SIGKILLed mid-action leaves each change made
 * exactly once and the action completed by another worker; a target deactivated between proposal
 * and confirmation makes the action partial, names that item, and a resume finishes it.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api, waitFor } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { stackWorker } from "../../reliability/helpers";
import { addEmployees, askAdmin, cleanUp, freshUser, scriptTurn, spawnSlowActionWorker, unique, waitForAction, type Person } from "./helpers";

describe("admin actions under failure", function () {
  this.timeout(120_000);
  let stack: Stack;
  let admin: Person;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  beforeEach(async () => {
    stack.llm.reset();
    admin = await freshUser(stack, { role: "admin" });
  });
  afterEach(() => {
    stack.llm.setResponder(null);
    return cleanUp(stack);
  });

  async function proposeAssignment(department: string): Promise<string> {
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }], answer: "Confirm?" });
    const turn = await askAdmin(stack, admin, `Assign the warehouse safety course to ${department}`);
    expect(turn.pending, JSON.stringify(turn.toolResults)).to.exist;
    return turn.pending.actionId;
  }

  it("completes with every enrollment created exactly once when the worker is killed mid-action", async () => {
    const department = `Night Shift ${unique()}`;
    const team = await addEmployees(
      stack,
      department,
      Array.from({ length: 40 }, (_, i) => `Worker ${i} ${unique()}`),
    );
    const actionId = await proposeAssignment(department);

    const inProcess = stackWorker(stack, "admin-actions");
    await inProcess.pause();
    const startWorker = () => spawnSlowActionWorker(stack);
    const db = stack.server.deps.db;
    const doomed = startWorker();
    try {
      expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token })).status).to.equal(202);
      const doneCount = async () =>
        Number((await db("admin_action_items").where({ action_id: actionId, status: "done" }).count<{ count: string }[]>("* as count").first())!.count);
      await waitFor(async () => (await doneCount()) >= 4, 60_000, "some items done");
      doomed.kill("SIGKILL");
      const doneBefore = await doneCount();
      expect(doneBefore).to.be.lessThan(40, "killed mid-action");
      const rescuer = startWorker();
      try {
        const { action } = await waitForAction(stack, admin, actionId, ["completed", "partial", "failed"], 60_000);
        expect(action).to.include({ status: "completed", done: 40, failed: 0 });
      } finally {
        rescuer.kill("SIGTERM");
      }
      const rows = await db("enrollments")
        .whereIn(
          "user_id",
          team.map((t) => t.id),
        )
        .where({ course_id: DEMO_IDS.courseIds.warehouseSafety })
        .select("user_id");
      expect(rows).to.have.length(40);
      expect(new Set(rows.map((r) => r.user_id)).size).to.equal(40);
      expect(await db("audit_log").where({ action_id: actionId })).to.have.length(40);
    } finally {
      doomed.kill("SIGKILL");
      inProcess.resume();
    }
  });

  it("reports a target deactivated after the proposal as a failed item of a partial action, and resumes it", async () => {
    const department = `Returns Desk ${unique()}`;
    const team = await addEmployees(stack, department, ["Amy Keep", "Ben Leaves", "Cat Keep"]);
    const actionId = await proposeAssignment(department);
    const leaver = team.find((t) => t.name === "Ben Leaves")!;
    const db = stack.server.deps.db;
    await db("users").where({ id: leaver.id }).update({ is_active: false });

    expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token })).status).to.equal(202);
    const partial = await waitForAction(stack, admin, actionId, ["completed", "partial", "failed"]);
    expect(partial.action).to.include({ status: "partial", done: 2, failed: 1 });
    const failed = partial.items.filter((i) => i.status === "failed");
    expect(failed).to.have.length(1);
    expect(failed[0].label).to.match(/^Ben Leaves/);
    expect(failed[0].error).to.match(/deactivated after the action was proposed/);
    const done = await waitFor(
      () => admin.events.find((e) => (e.event as string) === "action_done" && e.payload.actionId === actionId)?.payload,
      10_000,
      "action_done",
    );
    expect(done).to.include({ status: "partial", failed: 1 });
    expect(done.failedItems[0].error).to.match(/deactivated/);

    const tooEarly = await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token });
    expect(tooEarly.status).to.equal(409);
    await db("users").where({ id: leaver.id }).update({ is_active: true });
    const resumed = await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/resume`, { token: admin.token });
    expect(resumed.status).to.equal(202);
    const finished = await waitForAction(stack, admin, actionId, ["completed", "failed"]);
    expect(finished.action).to.include({ status: "completed", done: 3, failed: 0, runs: 2 });
    expect(
      await db("enrollments")
        .whereIn(
          "user_id",
          team.map((t) => t.id),
        )
        .where({ course_id: DEMO_IDS.courseIds.warehouseSafety }),
    ).to.have.length(3);
    expect(await db("audit_log").where({ action_id: actionId })).to.have.length(3, "the two items done first were not redone");
    const again = await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/resume`, { token: admin.token });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal("ACTION_NOT_RESUMABLE");
  });
});
