/**
 * The AI allowance: operators set it and add credits (audited); a spent organisation's new turns
 * get 402 with nothing stored; a running turn finishes; every model call is charged once, to the
 * month's allowance first and then to credits, in the transaction that writes its usage row.
 */
import { expect } from "chai";
import { allowanceState } from "../../../../db/queries/ai-allowance";
import { allowanceResponse } from "../../../../server/routes/allowance/schema";
import { insertUsage, type UsageRow } from "../../../../db/queries/llm-usage";
import { withCallScope } from "../../../../workers/llm/call-keys";
import { LlmClient } from "../../../../workers/llm/client";
import { usageLogSink } from "../../../../workers/usage-log";
import { api, join, login, waitForTurnEnd } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { dropOrganisation, freshOrganisation } from "./helpers";

const NO_DEFAULT = { defaultMonthlyTokens: 0 };

describe("AI allowance per organisation", function () {
  this.timeout(60_000);
  let stack: Stack;
  let operator: string;
  let orgId: string;
  let admin: Person;
  let employee: Person;

  const usage = (tokens: number, callKey: string): UsageRow => ({
    orgId,
    userId: null,
    useCase: "tutor",
    model: "test-model",
    promptTokens: tokens,
    completionTokens: 0,
    costUsd: 0,
    durationMs: 1,
    streamed: false,
    callKey,
  });
  const setAllowance = (monthly_tokens: number | null) =>
    api(stack.baseUrl, "PUT", `/api/v1/ops/orgs/${orgId}/ai-allowance`, { token: operator, body: { monthly_tokens } });
  const messagesOfOrg = async (): Promise<number> => Number((await stack.server.deps.db("chat_messages").where({ org_id: orgId }).count("* as n"))[0]!.n);

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    operator = (await login(stack.baseUrl, "admin@example.com")).token;
  });
  beforeEach(async () => {
    orgId = await freshOrganisation(stack);
    admin = await freshUser(stack, { role: "admin", orgId });
    employee = await freshUser(stack, { role: "employee", orgId });
  });
  afterEach(async () => {
    stack.llm.reset();
    await cleanUp(stack);
    await dropOrganisation(stack, orgId);
  });

  it("takes tokens from the month's allowance first, then credits, and charges a call key only once", async () => {
    expect((await setAllowance(1_000)).status).to.equal(200);
    const credited = await api(stack.baseUrl, "POST", `/api/v1/ops/orgs/${orgId}/ai-credits`, { token: operator, body: { tokens: 500, note: "pilot top-up" } });
    expect(credited.status).to.equal(201);
    expect(credited.body).to.include({ monthly_tokens: 1_000, credit_balance: 500, remaining_tokens: 1_500, status: "available" });

    expect(await insertUsage(stack.server.deps.db, usage(800, `k1-${orgId}`), NO_DEFAULT)).to.equal(true);
    expect(await insertUsage(stack.server.deps.db, usage(300, `k2-${orgId}`), NO_DEFAULT)).to.equal(true);
    // The same call written again (a retried write, a re-run job) changes nothing.
    expect(await insertUsage(stack.server.deps.db, usage(300, `k2-${orgId}`), NO_DEFAULT)).to.equal(false);
    const rows = await stack.server.deps
      .db("llm_usage_log")
      .where({ org_id: orgId })
      .orderBy("prompt_tokens", "desc")
      .select("allowance_tokens", "credit_tokens");
    expect(rows.map((r) => [Number(r.allowance_tokens), Number(r.credit_tokens)])).to.deep.equal([
      [800, 0],
      [200, 100],
    ]);
    let state = await allowanceState(stack.server.deps.db, orgId, 0);
    expect(state).to.include({ usedTokens: 1_000, creditTokensUsed: 100, creditBalance: 400, remaining: 400, exhausted: false });

    // Past both: the credits are emptied (never negative) and the rest is the month's overdraft.
    await insertUsage(stack.server.deps.db, usage(600, `k3-${orgId}`), NO_DEFAULT);
    state = await allowanceState(stack.server.deps.db, orgId, 0);
    expect(state).to.include({ usedTokens: 1_200, creditBalance: 0, remaining: 0, exhausted: true });
  });

  it("names a re-run job's identical model call the same, so only one usage row is written and charged", async () => {
    const llm = new LlmClient(stack.config, { usage: usageLogSink(stack.server.deps.db, NO_DEFAULT) });
    const ask = () => llm.chat({ useCase: "tutor", orgId }, [{ role: "user", content: "Say hello" }]);
    await withCallScope(`tutor-generate:${orgId}-generate`, ask);
    await withCallScope(`tutor-generate:${orgId}-generate`, ask);
    await withCallScope(`tutor-generate:${orgId}-other-job`, ask);
    const rows = await stack.server.deps.db("llm_usage_log").where({ org_id: orgId }).select("call_key", "prompt_tokens", "completion_tokens");
    expect(rows).to.have.length(2);
    const charged = rows.reduce((sum, r) => sum + r.prompt_tokens + r.completion_tokens, 0);
    expect((await allowanceState(stack.server.deps.db, orgId, 0)).usedTokens).to.equal(charged);
  });

  it("refuses new tutor and admin turns of a spent organisation with 402, storing nothing; credits resume them", async () => {
    await setAllowance(100);
    await insertUsage(stack.server.deps.db, usage(100, `spent-${orgId}`), NO_DEFAULT);
    const before = await messagesOfOrg();

    const tutor = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee.token, body: { message: "What is the refund window?" } });
    expect(tutor.status).to.equal(402);
    expect(tutor.body.error.code).to.equal("AI_ALLOWANCE_EXHAUSTED");
    expect(tutor.body.error.message).to.match(/paused until \d{1,2} \w+ \d{4}/);
    const resetsAt = new Date(tutor.body.error.resets_at);
    expect(resetsAt.getUTCDate()).to.equal(1);
    expect(resetsAt.getTime()).to.be.greaterThan(Date.now());
    const assistant = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: admin.token, body: { message: "How many learners?" } });
    expect(assistant.status).to.equal(402);
    expect(await messagesOfOrg()).to.equal(before);
    expect(stack.llm.chatCalls()).to.have.length(0);

    const seenByEmployee = await api(stack.baseUrl, "GET", "/api/v1/ai-allowance", { token: employee.token });
    expect(seenByEmployee.body).to.deep.equal({ status: "exhausted", unlimited: false, resets_at: resetsAt.toISOString() });
    const seenByAdmin = await api(stack.baseUrl, "GET", "/api/v1/ai-allowance", { token: admin.token });
    for (const seen of [seenByEmployee, seenByAdmin]) expect(allowanceResponse.safeParse(seen.body).success, "matches the documented schema").to.equal(true);
    expect(seenByAdmin.body).to.include({ status: "exhausted", used_tokens: 100, remaining_tokens: 0, credit_balance: 0 });

    await api(stack.baseUrl, "POST", `/api/v1/ops/orgs/${orgId}/ai-credits`, { token: operator, body: { tokens: 5_000, note: "resume" } });
    const resumed = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee.token, body: { message: "What is the refund window?" } });
    expect(resumed.status).to.equal(202);
  });

  it("lets a turn that was accepted finish past the allowance, charges all of it, and refuses the next one", async () => {
    await setAllowance(1);
    const started = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee.token,
      body: { message: "How many days do customers have to return an item?" },
    });
    expect(started.status).to.equal(202);
    await join(employee.socket, { sessionId: started.body.session_id });
    const events = await waitForTurnEnd(employee.events, started.body.turn_id);
    expect(events.map((e) => e.event)).to.include("done");
    const logged = await stack.server.deps
      .db("llm_usage_log")
      .where({ org_id: orgId })
      .sum({ tokens: stack.server.deps.db.raw("prompt_tokens + completion_tokens") });
    const state = await allowanceState(stack.server.deps.db, orgId, 0);
    expect(state.usedTokens).to.equal(Number(logged[0]!.tokens)).and.to.be.greaterThan(1);
    const next = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee.token, body: { message: "And exchanges?" } });
    expect(next.status).to.equal(402);
  });

  it("lets only operators change allowances, audits each change, and refuses bad input with 400", async () => {
    const byAdmin = await api(stack.baseUrl, "PUT", `/api/v1/ops/orgs/${orgId}/ai-allowance`, { token: admin.token, body: { monthly_tokens: 10 } });
    expect(byAdmin.status).to.equal(403);
    const unknown = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs/00000000-0000-4000-8000-000000000000/ai-credits", {
      token: operator,
      body: { tokens: 10, note: "x" },
    });
    expect(unknown.status).to.equal(404);
    for (const body of [{ monthly_tokens: -1 }, { monthly_tokens: 1.5 }, { monthly_tokens: "many" }, {}]) {
      const bad = await api(stack.baseUrl, "PUT", `/api/v1/ops/orgs/${orgId}/ai-allowance`, { token: operator, body });
      expect(bad.status, JSON.stringify(body)).to.equal(400);
      expect(bad.body.error.code).to.equal("VALIDATION_ERROR");
    }
    const noNote = await api(stack.baseUrl, "POST", `/api/v1/ops/orgs/${orgId}/ai-credits`, { token: operator, body: { tokens: 10, note: "  " } });
    expect(noNote.status).to.equal(400);

    expect((await setAllowance(2_000)).body).to.include({ monthly_tokens: 2_000, custom: true });
    expect((await setAllowance(null)).body).to.include({ custom: false, unlimited: true });
    await api(stack.baseUrl, "POST", `/api/v1/ops/orgs/${orgId}/ai-credits`, { token: operator, body: { tokens: 10, note: "goodwill" } });
    const audit = await stack.server.deps
      .db("audit_log")
      .where({ org_id: orgId })
      .orderBy("created_at")
      .select("action", "before", "after", "details", "actor_id");
    expect(audit.map((row) => row.action)).to.deep.equal(["ai_allowance.updated", "ai_allowance.updated", "ai_credits.added"]);
    expect(audit[1]!.before).to.deep.equal({ monthly_tokens: 2_000 });
    expect(audit[1]!.after).to.deep.equal({ monthly_tokens: null });
    expect(audit[2]!.details).to.deep.equal({ tokens: 10, note: "goodwill" });
    expect(audit[0]!.actor_id).to.be.a("string");
  });
});
