/**
 * Confirm-before-write under retries, deploys and races. An admin writes "Sure, give … to
 * everyone in <department>": the model proposes, and the turn's own message (which holds a
 * confirm word) must never confirm that proposal — not when the worker is stopped with SIGTERM
 * during the second model call and the job is handed back, not when every later model call fails
 * until the attempts are spent. A "yes" racing a turn that is still planning confirms nothing it
 * has not seen: over HTTP it is refused (409 TURN_IN_PROGRESS), and a reply that got stored
 * anyway before the proposal's `done` does not decide it. Each ends with nothing written.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import type { RunningWorkers } from "../../../workers/host";
import { api, join, waitFor, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import { startStack, type Stack } from "../../support/stack";
import { spawnReadyWorker, startOwnWorkers, stackWorker } from "../../reliability/helpers";
import { ADMIN_PROMPT_MARKER, addEmployees, cleanUp, freshUser, scriptTurn, unique, type Person } from "./helpers";

const SLOW_ANSWER = Array.from({ length: 40 }, (_, i) => `Point ${i + 1} of what happens next.`).join(" ");
const COURSE = DEMO_IDS.courseIds.warehouseSafety;

describe("confirm-before-write under retries, hand-backs and races", function () {
  this.timeout(120_000);
  let stack: Stack;
  let admin: Person;
  const children: ChildProcess[] = [];
  let own: RunningWorkers | undefined;

  before(startStack((started) => (stack = started)));
  beforeEach(async () => (admin = await freshUser(stack, { role: "admin", name: "Guard Admin" })));
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await own?.close();
    own = undefined;
    stack.llm.setResponder(null);
    stack.llm.reset();
    await cleanUp(stack);
  });

  const db = () => stack.server.deps.db;
  const ofTurn = (turnId: string) => admin.events.filter((e) => e.payload?.turnId === turnId);

  async function post(message: string, sessionId?: string): Promise<{ status: number; body: any }> {
    return api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: admin.token, body: { message, ...(sessionId ? { session_id: sessionId } : {}) } });
  }

  async function start(message: string): Promise<{ sessionId: string; turnId: string }> {
    const posted = await post(message);
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    expect(await join(admin.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
  }

  async function enrolled(team: Array<{ id: string }>): Promise<number> {
    const rows = await db()("enrollments")
      .whereIn(
        "user_id",
        team.map((t) => t.id),
      )
      .where({ course_id: COURSE });
    return rows.length;
  }

  /** A worker process serving only admin-plan; resolves once it takes jobs. */
  const startWorkerProcess = (settings: Record<string, string> = {}): Promise<ChildProcess> =>
    spawnReadyWorker(stack, { WORKER_QUEUES: "admin-plan:1", LOG_LEVEL: "silent", ...settings }, children);

  /**
   * One "Sure, give …" turn run by this test's own admin-plan workers on `model` (the stack's are
   * paused), its admin model calls answered by `answer(n)`; resolves with the turn's events.
   */
  async function flakyTurn(model: string, department: string, answer: (call: number) => ChatReply): Promise<{ turnId: string; events: ReceivedEvent[] }> {
    let calls = 0;
    stack.llm.setResponder(
      (request: ChatRequest): ChatReply => (String(request.messages[0]?.content ?? "").includes(ADMIN_PROMPT_MARKER) ? answer(++calls) : { content: "ok" }),
    );
    const inProcess = stackWorker(stack, "admin-plan");
    await inProcess.pause();
    try {
      own = await startOwnWorkers({ WORKER_QUEUES: "admin-plan:1", LLM_MODEL_ADMIN: model });
      const { turnId } = await start(`Sure, give the warehouse safety course to everyone in ${department}`);
      return { turnId, events: await waitForTurnEnd(admin.events, turnId, 60_000) };
    } finally {
      inProcess.resume();
    }
  }

  it("SIGTERM during the second model call: the re-run carries the proposal over unchanged and does not read its own 'Sure' as a yes", async () => {
    const department = `Sales ${unique()}`;
    const team = await addEmployees(stack, department, ["Ana Sales", "Ben Sales"]);
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: COURSE, department } }], answer: SLOW_ANSWER });
    stack.llm.setTokenDelay(60);
    const inProcess = stackWorker(stack, "admin-plan");
    await inProcess.pause();
    try {
      const stopping = await startWorkerProcess({ WORKER_DRAIN_MS: "300" });
      const { turnId } = await start(`Sure, give the warehouse safety course to everyone in ${department}`);
      const proposal = await waitFor(() => ofTurn(turnId).find((e) => e.event === "action_pending"), 60_000, "the proposal");
      await waitFor(() => ofTurn(turnId).filter((e) => e.event === "token").length >= 3, 60_000, "the second model call streaming");
      await startWorkerProcess();
      const exited = once(stopping, "exit");
      stopping.kill("SIGTERM");
      await waitFor(() => ofTurn(turnId).some((e) => e.event === "stage" && e.payload.status === "restart"), 60_000, "the re-run");
      await exited;
      // The stop fell mid-call and the re-run has begun: its answer may stream at full speed.
      stack.llm.setTokenDelay(0);
      const events = await waitForTurnEnd(admin.events, turnId, 90_000);
      expect(events.map((e) => e.event)).to.include("done");

      const actions = await db()("admin_actions").where({ turn_id: turnId });
      expect(actions, "one proposal for the turn, never a second").to.have.length(1);
      expect(actions[0]).to.include({ id: proposal.payload.actionId, status: "pending", confirmed_by: null });
      expect(actions[0].announced_at, "shown once the re-run's done went out").to.not.equal(null);
      // The re-run showed the same proposal again (the client dropped the first attempt's text).
      const shownAgain = events.filter((e) => e.event === "action_pending").map((e) => e.payload.actionId);
      expect(new Set(shownAgain)).to.deep.equal(new Set([proposal.payload.actionId]));
      const answer = await db()("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
      expect(answer.metadata).to.include({ action_id: proposal.payload.actionId, action_proposed: true });
      expect(answer.metadata.action_decision).to.equal(undefined);
      expect(await enrolled(team)).to.equal(0, "nothing written without a confirmation");
      expect(await db()("audit_log").where({ action_id: proposal.payload.actionId })).to.have.length(0);
    } finally {
      inProcess.resume();
    }
  });

  it("a model that fails every call after the proposal until the attempts are spent: the proposal is withdrawn, nothing written", async () => {
    const department = `Sales ${unique()}`;
    const team = await addEmployees(stack, department, ["Cleo Sales", "Dan Sales"]);
    const model = `flaky-admin-${unique()}`;
    let proposed = false;
    const { turnId, events } = await flakyTurn(model, department, () => {
      // The first call proposes; from then on every call to this model is a 503.
      proposed = true;
      stack.llm.failModel(model, 503);
      return { toolCalls: [{ name: "assign_course", arguments: { course_id: COURSE, department } }] };
    });
    expect(proposed).to.equal(true);
    expect(events.map((e) => e.event)).to.not.include("done");
    expect(events.filter((e) => e.event === "error" && !e.payload.willRetry)).to.have.length(1);

    const actions = await db()("admin_actions").where({ turn_id: turnId });
    expect(actions, "the second attempt did not propose again").to.have.length(1);
    expect(actions[0]).to.include({ status: "rejected", confirmed_by: null, runs: 0 });
    expect(actions[0].summary.reason).to.match(/failed/);
    const failed = await db()("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
    expect(failed).to.include({ status: "failed" });
    expect(await enrolled(team)).to.equal(0);
  });

  it("a retried attempt whose model no longer asks for the write still shows the carried proposal, unchanged, and asks for a yes", async () => {
    const department = `Sales ${unique()}`;
    const team = await addEmployees(stack, department, ["Ivy Sales", "Jay Sales"]);
    const model = `flaky-admin-${unique()}`;
    const { turnId, events } = await flakyTurn(model, department, (call) => {
      if (call > 1) return { content: "Here is what I prepared." };
      // The first attempt proposes, then its next call fails past the client's retries.
      stack.llm.enqueueReply({ status: 503 }, { status: 503 });
      return { toolCalls: [{ name: "assign_course", arguments: { course_id: COURSE, department } }] };
    });
    expect(events.map((e) => e.event)).to.include("done");
    expect(events.some((e) => e.event === "error" && e.payload.willRetry)).to.equal(true, "the first attempt failed and was retried");
    const actions = await db()("admin_actions").where({ turn_id: turnId });
    expect(actions).to.have.length(1);
    expect(actions[0]).to.include({ status: "pending", confirmed_by: null });
    expect(actions[0].announced_at).to.not.equal(null);
    const answer = await db()("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
    expect(answer.content).to.include(`Proposed: “${actions[0].preview}”`);
    expect(answer.metadata).to.include({ action_id: actions[0].id, action_proposed: true });
    expect(await enrolled(team)).to.equal(0);
  });

  it("a 'yes' racing a turn that is still planning is refused with 409 TURN_IN_PROGRESS, and the proposal stays pending", async () => {
    const department = `Sales ${unique()}`;
    const team = await addEmployees(stack, department, ["Eve Sales", "Finn Sales"]);
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: COURSE, department } }], answer: SLOW_ANSWER });
    stack.llm.setTokenDelay(40);
    const { sessionId, turnId } = await start(`Give the warehouse safety course to everyone in ${department}`);
    const proposal = await waitFor(() => ofTurn(turnId).find((e) => e.event === "action_pending"), 30_000, "the proposal");

    const racing = await post("yes", sessionId);
    expect(racing.status, JSON.stringify(racing.body)).to.equal(409);
    expect(racing.body.error).to.include({ code: "TURN_IN_PROGRESS", turn_id: turnId });
    expect(racing.body.error.message).to.match(/still being answered/);
    expect(await db()("chat_messages").where({ session_id: sessionId, role: "user", content: "yes" })).to.have.length(0, "nothing stored");

    // The race is over: the rest of the slow answer may stream at full speed.
    stack.llm.setTokenDelay(0);
    await waitForTurnEnd(admin.events, turnId, 60_000);
    const action = await db()("admin_actions").where({ id: proposal.payload.actionId }).first();
    expect(action).to.include({ status: "pending", confirmed_by: null });
    expect(await enrolled(team)).to.equal(0);

    // Once the answer is out, the same word confirms what was shown.
    stack.llm.setTokenDelay(0);
    const after = await post("yes", sessionId);
    expect(after.status).to.equal(202);
    await waitForTurnEnd(admin.events, after.body.turn_id, 30_000);
    const confirmed = await db()("admin_actions").where({ id: proposal.payload.actionId }).first();
    expect(confirmed.confirmed_by).to.equal(admin.id);
    // The confirmed run ends before the clean-up removes the people it enrols: deleting them under
    // a running action deadlocked with its writes.
    await waitFor(async () => (await db()("admin_actions").where({ id: proposal.payload.actionId }).first()).status === "completed", 30_000, "the action run");
    expect(await enrolled(team)).to.equal(2);
  });

  it("a reply stored before the proposing turn's done (past the HTTP check) does not decide the proposal", async () => {
    const department = `Sales ${unique()}`;
    const team = await addEmployees(stack, department, ["Gus Sales", "Hana Sales"]);
    scriptTurn(stack, {
      calls: [{ name: "assign_course", arguments: { course_id: COURSE, department } }],
      answer: SLOW_ANSWER,
      forMessage: "everyone in",
    });
    stack.llm.setTokenDelay(40);
    const { sessionId, turnId } = await start(`Give the warehouse safety course to everyone in ${department}`);
    const proposal = await waitFor(() => ofTurn(turnId).find((e) => e.event === "action_pending"), 30_000, "the proposal");

    // A "yes" that reached the worker while the proposing turn was still streaming (as from a
    // second server node without the session check): stored and queued directly.
    const replyTurn = randomUUID();
    const [message] = await db()("chat_messages")
      .insert({ org_id: DEMO_IDS.orgId, session_id: sessionId, turn_id: replyTurn, role: "user", content: "yes", metadata: {} })
      .returning("id");
    await stack.server.deps.producer.enqueueAdminTurn({ orgId: DEMO_IDS.orgId, userId: admin.id, sessionId, turnId: replyTurn, messageId: message.id });
    const replyEvents = await waitForTurnEnd(admin.events, replyTurn, 30_000);
    expect(replyEvents.map((e) => e.event)).to.include("done");
    const reply = await db()("chat_messages").where({ turn_id: replyTurn, role: "assistant" }).first();
    expect(reply.content).to.match(/before I had shown you the proposal/);
    expect(reply.metadata.action_decision).to.equal("still_pending");

    // The reply was decided while the proposal still streamed: the rest of it may stream at full speed.
    stack.llm.setTokenDelay(0);
    await waitForTurnEnd(admin.events, turnId, 60_000);
    const action = await db()("admin_actions").where({ id: proposal.payload.actionId }).first();
    expect(action).to.include({ status: "pending", confirmed_by: null });
    expect(await enrolled(team)).to.equal(0);
  });
});
