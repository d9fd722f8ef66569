/**
 * Issue 34, point 2: stopping a confirmed bulk action, on the real stack. A 2,000-item action
 * stopped mid-way through the API keeps what is done (each done item audited once, nothing more
 * applied after the stop), ends `stopped` with counts that add up, and a resume runs only the
 * items not done. "para" in the chat stops the session's queued action; a question about stopping
 * ("what happens if I stop?", "¿qué pasa si paro?") does not, and "para" mid-run answers with the
 * exact counts. Another organisation's admin gets 404,
 * an employee 403, a finished action 409. A stop while the only worker is dead holds when the job
 * is redelivered.
 */
import { expect } from "chai";
import type { Worker } from "bullmq";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api, waitFor } from "../../harness/client";
import { stackWorker, startOwnWorkers, type StackWorkers } from "../../reliability/helpers";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import type { RunningWorkers } from "../../../workers/host";
import { actionOf, addEmployees, askAdmin, cleanUp, freshUser, scriptTurn, spawnSlowActionWorker, unique, waitForAction, type Person } from "./helpers";

describe("admin actions: stop and resume", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  const db = () => stack.server.deps.db;
  let admin: Person;
  let stackActions: StackWorkers;
  let otherOrg: string;

  before(async () => {
    // This suite decides when actions run: the stack's own action workers stay paused throughout.
    stackActions = stackWorker(stack, "admin-actions");
    await stackActions.pause();
    otherOrg = await freshOrganisation(stack, "Stop other org");
  });
  after(async () => {
    stackActions.resume();
    await dropOrganisations(db(), [otherOrg]);
  });
  beforeEach(async () => {
    admin = await freshUser(stack, { role: "admin" });
  });
  afterEach(() => {
    stack.llm.setResponder(null);
    return cleanUp(stack);
  });

  /** Workers of this test that run actions slowly enough to stop mid-way; their finished jobs' results are recorded. */
  async function actionWorkers(pace = { batch: 10, pauseMs: 15 }): Promise<{ own: RunningWorkers; results: Array<{ jobId: string; result: unknown }> }> {
    const own = await startOwnWorkers({
      WORKER_QUEUES: "admin-actions:1",
      ADMIN_ACTION_BATCH_SIZE: String(pace.batch),
      ADMIN_ACTION_BATCH_PAUSE_MS: String(pace.pauseMs),
    });
    const results: Array<{ jobId: string; result: unknown }> = [];
    for (const worker of own.workers as Worker[]) worker.on("completed", (job, result) => results.push({ jobId: job.id!, result }));
    return { own, results };
  }

  async function propose(department: string, size: number, sessionId?: string): Promise<{ actionId: string; sessionId: string; team: Array<{ id: string }> }> {
    const team = await addEmployees(
      stack,
      department,
      Array.from({ length: size }, (_, i) => `Stopper ${i} ${unique()}`),
    );
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }], answer: "Ready." });
    const turn = await askAdmin(stack, admin, `Assign the warehouse safety course to ${department}`, sessionId);
    expect(turn.pending, JSON.stringify(turn.toolResults)).to.exist;
    expect(turn.pending.total).to.equal(size);
    return { actionId: turn.pending.actionId, sessionId: turn.sessionId, team };
  }

  const itemCounts = async (actionId: string): Promise<Record<string, number>> => {
    const rows = await db()("admin_action_items")
      .where({ action_id: actionId })
      .groupBy("status")
      .select("status")
      .count<{ status: string; count: string }[]>("* as count");
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  };
  const enrolled = async (team: Array<{ id: string }>): Promise<string[]> =>
    (
      await db()("enrollments")
        .whereIn(
          "user_id",
          team.map((t) => t.id),
        )
        .where({ course_id: DEMO_IDS.courseIds.warehouseSafety })
        .select("user_id")
    ).map((row) => row.user_id);
  const stop = (actionId: string, token = admin.token) => api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/stop`, { token });

  it("stops a 2,000-item action mid-way: done items stay done and audited, the rest not run; a resume completes only those", async () => {
    const { actionId, team } = await propose(`Stop Desk ${unique()}`, 2000);
    const { own, results } = await actionWorkers();
    try {
      expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token })).status).to.equal(202);
      await waitFor(async () => ((await itemCounts(actionId)).done ?? 0) >= 340, 120_000, "340 items done");

      const stopped = await stop(actionId);
      expect(stopped.status, JSON.stringify(stopped.body)).to.equal(200);
      const { action } = stopped.body;
      expect(action.status).to.equal("stopped");
      expect(action.stopped_by).to.equal(admin.id);
      expect(action.done).to.be.at.least(340);
      expect(action.failed).to.equal(0);
      expect(action.not_run).to.be.greaterThan(0);
      expect(action.done + action.not_run).to.equal(2000);

      // The job ends on its own once it meets the stop, having started no item after it.
      await waitFor(() => results.find((r) => r.jobId === `${actionId}-run-1`), 30_000, "the run's job to end");
      expect(results.find((r) => r.jobId === `${actionId}-run-1`)!.result).to.deep.equal({ status: "stopped" });
      expect(await itemCounts(actionId)).to.deep.equal({ done: action.done, pending: action.not_run });
      const audit = await db()("audit_log").where({ action_id: actionId }).select("action_item_id");
      expect(audit).to.have.length(action.done);
      const doneItems = await db()("admin_action_items").where({ action_id: actionId, status: "done" }).pluck("id");
      expect(new Set(audit.map((row) => row.action_item_id))).to.deep.equal(new Set(doneItems));
      expect(await enrolled(team)).to.have.length(action.done);

      const announced = await waitFor(
        () => admin.events.find((e) => (e.event as string) === "action_done" && e.payload.actionId === actionId)?.payload,
        10_000,
        "action_done",
      );
      expect(announced).to.include({ status: "stopped", done: action.done, failed: 0, notRun: action.not_run, total: 2000, stoppedBy: admin.id });
      const detail = await actionOf(stack, admin, actionId);
      expect(detail.action).to.include({ status: "stopped", not_run: action.not_run });

      const again = await stop(actionId);
      expect(again.status).to.equal(409);
      expect(again.body.error).to.include({ code: "ACTION_NOT_RUNNING", status: "stopped" });

      const resumed = await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/resume`, { token: admin.token });
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(202);
      const finished = await waitForAction(stack, admin, actionId, ["completed", "partial", "failed"], 120_000);
      expect(finished.action).to.include({ status: "completed", done: 2000, failed: 0, not_run: 0, runs: 2 });
      const people = await enrolled(team);
      expect(people).to.have.length(2000);
      expect(new Set(people).size).to.equal(2000, "no enrollment made twice");
      const allAudit = await db()("audit_log").where({ action_id: actionId }).select("action_item_id", "resumed_by");
      expect(allAudit).to.have.length(2000);
      expect(new Set(allAudit.map((row) => row.action_item_id)).size).to.equal(2000, "no item applied twice");
      expect(allAudit.filter((row) => row.resumed_by === admin.id)).to.have.length(action.not_run, "the resumed run did only the items not run");
    } finally {
      await own.close();
    }
  });

  it("refuses another organisation's admin with 404 and an employee with 403, and a stop of what is not running with 409", async () => {
    const { actionId } = await propose(`Stop Guard ${unique()}`, 3);
    const outsider = await freshUser(stack, { role: "admin", orgId: otherOrg });
    const employee = await freshUser(stack, { role: "employee" });

    const pending = await stop(actionId);
    expect(pending.status).to.equal(409);
    expect(pending.body.error).to.include({ code: "ACTION_NOT_RUNNING", status: "pending" });

    expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token })).status).to.equal(202);
    const foreign = await stop(actionId, outsider.token);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal("NOT_FOUND");
    expect((await stop(actionId, employee.token)).status).to.equal(403);
    expect((await actionOf(stack, admin, actionId)).action.status).to.equal("confirmed", "neither refusal stopped it");
    expect((await stop("not-a-uuid")).status).to.equal(400);

    // Queued and never started: stopping it leaves every item not run, and its job, once a worker takes it, runs none.
    const stopped = await stop(actionId);
    expect(stopped.body.action).to.include({ status: "stopped", done: 0, not_run: 3 });
    const { own, results } = await actionWorkers();
    try {
      await waitFor(() => results.find((r) => r.jobId === `${actionId}-run-1`), 30_000, "the queued job to be taken");
      expect(results.find((r) => r.jobId === `${actionId}-run-1`)!.result).to.deep.equal({ skipped: true });
      expect(await itemCounts(actionId)).to.deep.equal({ pending: 3 });
      expect(await db()("audit_log").where({ action_id: actionId })).to.have.length(0);
    } finally {
      await own.close();
    }
  });

  it("stops on a plain “para” in the chat, and not on “what happens if I stop?” or “¿qué pasa si paro?”", async () => {
    const { actionId, sessionId, team } = await propose(`Stop Chat ${unique()}`, 200);
    // No worker runs actions yet: the confirmed action waits in the queue, as it would behind a long one.
    const confirmed = await askAdmin(stack, admin, "sí", sessionId);
    expect(confirmed.answer!.metadata.action_decision).to.equal("confirmed");

    for (const question of ["what happens if I stop?", "¿qué pasa si paro?"]) {
      scriptTurn(stack, { answer: "Stopping keeps what is done and runs nothing more." });
      const asked = await askAdmin(stack, admin, question, sessionId);
      expect(asked.answer!.status, question).to.equal("complete");
      expect(asked.answer!.metadata.action_decision, question).to.equal(undefined);
      expect(asked.tokens, question).to.include("Stopping keeps what is done");
      expect((await actionOf(stack, admin, actionId)).action.status, question).to.equal("confirmed");
    }

    // Now it runs, slowly (2 items every 150 ms), and "para" stops it mid-way.
    const slow = await actionWorkers({ batch: 2, pauseMs: 150 });
    try {
      await waitFor(async () => ((await itemCounts(actionId)).done ?? 0) >= 10, 60_000, "10 items done");
      const para = await askAdmin(stack, admin, "para", sessionId);
      expect(para.answer!.metadata.action_decision).to.equal("stopped");
      expect(para.answer!.metadata.action_id).to.equal(actionId);
      const { action } = await actionOf(stack, admin, actionId);
      expect(action).to.include({ status: "stopped", stopped_by: admin.id, failed: 0 });
      expect(action.done).to.be.within(10, 199);
      expect(action.done + action.not_run).to.equal(200);
      expect(para.tokens).to.include(`Detenida tras ${action.done} de 200: ${action.done} hechos, ${action.not_run} sin ejecutar.`);
      await waitFor(() => slow.results.find((r) => r.jobId === `${actionId}-run-1`), 30_000, "the run's job to end");
      expect(await itemCounts(actionId)).to.deep.equal({ done: action.done, pending: action.not_run });

      // Nothing runs any more: a second "stop" says so instead of guessing.
      const nothing = await askAdmin(stack, admin, "stop", sessionId);
      expect(nothing.answer!.metadata.action_decision).to.equal("unchanged");
      expect(nothing.tokens).to.include(`there was nothing to stop. Stopped after ${action.done} of 200: ${action.done} done, ${action.not_run} not run.`);
    } finally {
      await slow.own.close();
    }

    const { own } = await actionWorkers();
    try {
      expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/resume`, { token: admin.token })).status).to.equal(202);
      const finished = await waitForAction(stack, admin, actionId, ["completed", "partial", "failed"], 60_000);
      expect(finished.action).to.include({ status: "completed", done: 200 });
      expect(await enrolled(team)).to.have.length(200);
      expect(await db()("audit_log").where({ action_id: actionId })).to.have.length(200, "no item applied twice");
    } finally {
      await own.close();
    }
  });

  it("holds a stop made while the action's only worker is dead: the redelivered job runs nothing more", async () => {
    const { actionId, team } = await propose(`Stop Crash ${unique()}`, 60);
    const startWorker = () => spawnSlowActionWorker(stack);
    const doomed = startWorker();
    let rescuer: ReturnType<typeof startWorker> | undefined;
    try {
      expect((await api(stack.baseUrl, "POST", `/api/v1/admin/actions/${actionId}/confirm`, { token: admin.token })).status).to.equal(202);
      await waitFor(async () => ((await itemCounts(actionId)).done ?? 0) >= 4, 60_000, "some items done");
      doomed.kill("SIGKILL");
      await new Promise((resolve) => doomed.once("exit", resolve));
      const stopped = await stop(actionId);
      expect(stopped.body.action.status).to.equal("stopped");
      const { done, not_run: notRun } = stopped.body.action;
      expect(done + notRun).to.equal(60);

      // The job is still active in BullMQ (its worker died): another worker takes it over once its lock expires.
      rescuer = startWorker();
      const queue = stack.server.deps.producer.queue("admin-actions");
      const job = await queue.getJob(`${actionId}-run-1`);
      expect(job, "the run's job").to.exist;
      await waitFor(async () => (await job!.isCompleted()) || (await job!.isFailed()), 60_000, "the redelivered job to end");
      expect(await itemCounts(actionId)).to.deep.equal({ done, pending: notRun });
      expect(await enrolled(team)).to.have.length(done);
      expect((await actionOf(stack, admin, actionId)).action).to.include({ status: "stopped", done, not_run: notRun });
    } finally {
      doomed.kill("SIGKILL");
      rescuer?.kill("SIGTERM");
    }
  });
});
