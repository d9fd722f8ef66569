/**
 * Cancelling an admin assistant turn: the admin owner may (another admin may not), the stream
 * stops, the partial answer is stored as `cancelled`, and a write proposed earlier in the turn
 * does not stay pending.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, join, waitFor, waitForTurnEnd } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { actionOf, addEmployees, cleanUp, freshUser, scriptTurn, type Person } from "./helpers";

const LONG_ANSWER = Array.from({ length: 100 }, (_, i) => `Point ${i + 1} of the plan.`).join(" ");

describe("cancelling an admin assistant turn", function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  beforeEach(() => stack.llm.reset());
  afterEach(async () => {
    stack.llm.reset();
    await cleanUp(stack);
  });

  async function startAdminTurn(admin: Person, message: string): Promise<{ sessionId: string; turnId: string }> {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: admin.token, body: { message } });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    expect(await join(admin.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
  }

  const turnEvents = (admin: Person, turnId: string) => admin.events.filter((e) => e.payload?.turnId === turnId);

  it("stops mid-answer after a proposal: partial stored as cancelled, the proposal withdrawn, another admin refused", async () => {
    const admin = await freshUser(stack, { role: "admin" });
    const otherAdmin = await freshUser(stack, { role: "admin" });
    const [target] = await addEmployees(stack, `Cancel-${randomUUID().slice(0, 6)}`, ["Casey Cancel"]);
    scriptTurn(stack, { calls: [{ name: "deactivate_employee", arguments: { employee_id: target!.id } }], answer: LONG_ANSWER });
    stack.llm.setTokenDelay(30);
    const { turnId } = await startAdminTurn(admin, "Deactivate Casey Cancel and explain the plan");

    const pending = await waitFor(() => turnEvents(admin, turnId).find((e) => e.event === "action_pending"), 20_000, "the proposal");
    await waitFor(() => turnEvents(admin, turnId).filter((e) => e.event === "token").length >= 5, 20_000, "the answer streaming");

    const refused = await api(stack.baseUrl, "POST", `/api/v1/chat/turns/${turnId}/cancel`, { token: otherAdmin.token });
    expect(refused.status).to.equal(404, "another admin cannot cancel this admin's turn");
    const cancelledAt = performance.now();
    const response = await api(stack.baseUrl, "POST", `/api/v1/chat/turns/${turnId}/cancel`, { token: admin.token });
    expect(response.status).to.equal(202);

    const events = await waitForTurnEnd(admin.events, turnId, 10_000);
    expect(performance.now() - cancelledAt).to.be.below(3_000);
    const done = events.find((e) => e.event === "done")!;
    expect(done.payload).to.include({ cancelled: true, actionId: null });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(turnEvents(admin, turnId).at(-1)!.event).to.equal("done");

    const shown = turnEvents(admin, turnId)
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content)
      .join("");
    expect(shown.length).to.be.below(LONG_ANSWER.length / 2);
    const stored = await stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
    expect(stored).to.include({ status: "cancelled", content: shown });
    expect(stored.metadata.tool_calls).to.have.length(1);

    const { action } = await actionOf(stack, admin, pending.payload.actionId);
    expect(action.status).to.equal("rejected", "a cancelled turn leaves no pending action");
    const statusEvents = admin.events.filter((e) => (e.event as string) === "action_status" && e.payload.actionId === pending.payload.actionId);
    expect(statusEvents.map((e) => e.payload.status)).to.include("rejected");
  });

  it("cancelled before it plans: no model call for it, nothing proposed, done cancelled", async () => {
    const admin = await freshUser(stack, { role: "admin" });
    const message = `Deactivate nobody, just wait ${randomUUID()}`;
    // Hold the admin-plan queue back (a global pause: no worker takes its jobs) so the cancel lands first.
    const queue = stack.server.deps.producer.queue("admin-plan");
    await queue.pause();
    try {
      const { sessionId, turnId } = await startAdminTurn(admin, message);
      expect((await api(stack.baseUrl, "POST", `/api/v1/chat/turns/${turnId}/cancel`, { token: admin.token })).status).to.equal(202);
      await queue.resume();
      const events = await waitForTurnEnd(admin.events, turnId, 20_000);
      expect(events.find((e) => e.event === "done")!.payload).to.include({ cancelled: true, toolCalls: 0 });
      expect(stack.llm.chatCalls().filter((r) => JSON.stringify(r.body?.messages ?? []).includes(message))).to.have.length(0);
      expect(await stack.server.deps.db("admin_actions").where({ session_id: sessionId })).to.have.length(0);
      expect(await stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first()).to.include({
        status: "cancelled",
        content: "",
      });
    } finally {
      await queue.resume();
    }
  });
});
