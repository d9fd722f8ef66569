/**
 * The AI allowance is read before every model call of an admin turn, not only when the turn is
 * accepted: an organisation that runs out during round 1 gets no round 2. The turn ends once,
 * without a retry, with the accept-time code (AI_ALLOWANCE_EXHAUSTED) and its opening sentence;
 * another organisation's multi-round turn is untouched.
 */
import { expect } from "chai";
import { setMonthlyAllowance } from "../../../commands/ai-allowance";
import { allowanceState } from "../../../db/queries/ai-allowance";
import { api } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { dropOrganisation, freshOrganisation } from "../../server/routes/allowance/helpers";
import { ADMIN_PROMPT_MARKER, askAdmin, cleanUp, freshUser, scriptTurn, type Person } from "./helpers";

const ACCEPT_TIME_OPENING = /^Your organisation has used this month's AI allowance, so the assistant is paused until \d{1,2} \w+ \d{4}\. /;

describe("admin turns: the allowance before every model call", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  before(async () => {
    orgA = await freshOrganisation(stack, "Allowance A");
    orgB = await freshOrganisation(stack, "Allowance B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    stack.llm.setResponder(null);
    await cleanUp(stack);
    await dropOrganisation(stack, orgA);
    await dropOrganisation(stack, orgB);
  });

  /** The admin model requests that carried this message. */
  const requestsFor = (message: string) =>
    stack.llm.chatCalls().filter((call) => {
      const messages = (call.body?.messages ?? []) as any[];
      return String(messages[0]?.content ?? "").includes(ADMIN_PROMPT_MARKER) && messages.some((m) => m.role === "user" && m.content === message);
    });

  it("ends a turn whose organisation runs out after round 1 with AI_ALLOWANCE_EXHAUSTED, before round 2; another org's turn runs both rounds", async () => {
    const db = stack.server.deps.db;
    // Enough to be accepted, far less than one round of the admin prompt costs.
    await setMonthlyAllowance({ db }, { orgId: orgA, monthlyTokens: 50, actorId: adminA.id });
    expect((await allowanceState(db, orgA, 0)).exhausted).to.equal(false);

    const message = "Which courses do we have, and how are they going?";
    scriptTurn(stack, { rounds: [[{ name: "list_courses", arguments: {} }], [{ name: "get_alerts", arguments: {} }]], answer: "All fine." });
    const turn = await askAdmin(stack, adminA, message);

    // Round 1 ran (its tool too); round 2 was never asked for.
    expect(turn.toolResults.map((r) => [r.tool, r.ok])).to.deep.equal([["list_courses", true]]);
    expect(requestsFor(message)).to.have.length(1);
    expect(turn.names).to.not.include("done");
    const errors = turn.events.filter((e) => e.event === "error");
    expect(errors.map((e) => [e.payload.code, Boolean(e.payload.willRetry)])).to.deep.equal([["AI_ALLOWANCE_EXHAUSTED", false]]);
    expect(errors[0]!.payload.message).to.match(ACCEPT_TIME_OPENING);
    expect(turn.answer).to.deep.include({ status: "failed" });
    expect(turn.answer!.metadata).to.include({ error_code: "AI_ALLOWANCE_EXHAUSTED" });
    const job = await stack.workers.deps.producer.queue("admin-plan").getJob(`${turn.turnId}-admin-plan`);
    expect(job?.attemptsMade, "not retried: a spent allowance fails the same way again").to.equal(1);

    // The next turn is refused at the door, with the same code and the same opening.
    const refused = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: adminA.token, body: { message: "And now?", session_id: turn.sessionId } });
    expect(refused.status).to.equal(402);
    expect(refused.body.error.code).to.equal("AI_ALLOWANCE_EXHAUSTED");
    expect(refused.body.error.message).to.match(ACCEPT_TIME_OPENING);

    // Organisation B (no allowance of its own: unlimited by default) runs every round of the same script.
    const other = await askAdmin(stack, adminB, message);
    expect(other.names.at(-1)).to.equal("done");
    expect(other.toolResults.map((r) => r.tool)).to.deep.equal(["list_courses", "get_alerts"]);
    expect(requestsFor(message).filter((call) => JSON.stringify(call.body.messages).includes(adminB.name))).to.have.length(3);
    expect(other.answer).to.deep.include({ status: "complete" });
  });
});
