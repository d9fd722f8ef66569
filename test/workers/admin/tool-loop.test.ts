/**
 * runToolLoop (workers/admin/tool-loop.ts) with the real model client against the scripted
 * model and real read tools on the demo organisation: rounds of tool calls, each announced and
 * reported, results fed back to the model; a blocked write not run; the last round forced to
 * answer (tool_choice none); a cancelled turn stopping before its next model call. And the
 * loop's bounds: at most ADMIN_MAX_TOOL_CALLS_PER_ROUND calls of one reply run; a database blip
 * in a tool is retried with backoff; a tool that keeps failing trips the breaker of its
 * organisation and is not attempted during the cool-down (another organisation's still is).
 *
 * The loop talks to a scripted model of its own, not the stack's: the stack's workers share that
 * one, and a job left over from an earlier suite could take a reply scripted here or add a
 * request to the log this suite reads by position.
 */
import { expect } from "chai";
import type { TurnEventName, TurnEventPayloads } from "../../../queues/events/contract";
import type { CancelWatch } from "../../../workers/turns/turn-state";
import type { ChatMessage } from "../../../workers/llm/client";
import type { ToolContext } from "../../../workers/admin/tools/tool";
import { callLimitResult, runToolLoop } from "../../../workers/admin/tool-loop";
import { ToolBreaker } from "../../../workers/admin/tools/resilience";
import type { Db } from "../../../db/knex";
import type { TurnEmitter } from "../../../workers/turns/turn-emitter";
import type { WorkerDeps } from "../../../workers/deps";
import { useStack, type Stack } from "../../support/stack";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";
import { makeClient } from "../llm/helpers";
import { configWith } from "../../support/tunables";
import { saveOrganisationPolicy } from "../../../db/queries/organisation-policy";
import { dropOrganisation, freshOrganisation } from "../../server/routes/allowance/helpers";

type Emitted = { event: TurnEventName; payload: any };

/**
 * The worker's Knex, failing its first `failures` queries (every query when Infinity) with a
 * PostgreSQL error code, as a server restarting (57P01) or a statement timeout (57014) does.
 */
function flakyDb(db: Db, failures: number, code = "57P01"): { db: Db; thrown: () => number } {
  let left = failures;
  let thrown = 0;
  const maybeFail = () => {
    if (left <= 0) return;
    left -= 1;
    thrown += 1;
    throw Object.assign(new Error("simulated database blip"), { code });
  };
  const proxy = new Proxy(db, {
    apply(target, self, args) {
      maybeFail();
      return Reflect.apply(target, self, args);
    },
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "raw" && key !== "transaction") return value;
      return (...args: unknown[]) => {
        maybeFail();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: proxy, thrown: () => thrown };
}

function recorder(): { events: TurnEmitter; emitted: Emitted[] } {
  const emitted: Emitted[] = [];
  return {
    emitted,
    events: {
      async emit<E extends TurnEventName>(event: E, payload: TurnEventPayloads[E]) {
        emitted.push({ event, payload });
        return 0;
      },
    },
  };
}

describe("the admin tool loop", function () {
  this.timeout(30_000);
  let stack: Stack;
  let llm: ScriptedLlm;
  let deps: WorkerDeps;
  let tools: ToolContext;
  let proposals: unknown[];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    llm = await startScriptedLlm();
    deps = { ...stack.workers.deps, llm: makeClient(llm).client };
  });
  after(() => llm?.close());
  beforeEach(() => {
    proposals = [];
    tools = {
      db: stack.workers.deps.db,
      orgId: stack.demo.orgId,
      userId: stack.demo.adminId,
      language: "en",
      today: new Date().toISOString().slice(0, 10),
      propose: async (action) => {
        proposals.push(action);
        throw new Error("no proposal expected in this test");
      },
    };
  });
  afterEach(() => llm.reset());

  const conversation = (): ChatMessage[] => [
    { role: "system", content: "You are the admin assistant." },
    { role: "user", content: "Which courses do we have?" },
  ];
  const withRounds = (rounds: number): WorkerDeps => ({ ...deps, config: configWith(deps.config, { ADMIN_MAX_TOOL_ROUNDS: rounds }) });
  const withConfig = (overrides: Record<string, unknown>): WorkerDeps => ({ ...deps, config: configWith(deps.config, overrides) });
  const listCourses = { name: "list_courses", arguments: {} };

  it("runs at most 10 tool calls of one reply: the 11th and 12th get a result saying the limit, and are not run", async () => {
    const calls = Array.from({ length: 12 }, (_, i) => ({ name: "list_courses", arguments: { limit: i + 1 } }));
    llm.enqueueReply({ toolCalls: calls }, { content: "Here they are." });
    const { events, emitted } = recorder();
    const result = await runToolLoop({ deps, events, tools, messages: conversation(), prefix: "", writeBlocked: () => null });
    expect(result.runs).to.have.length(12);
    expect(result.runs.filter((run) => run.ok)).to.have.length(10);
    const limited = result.runs.slice(10);
    expect(limited.map((run) => [run.ok, run.error])).to.deep.equal([
      [false, callLimitResult(10)],
      [false, callLimitResult(10)],
    ]);
    // The ten that ran returned the org's courses; the two past the limit carry no data.
    expect(JSON.parse(result.runs[9]!.json).courses.length).to.be.greaterThan(0);
    expect(JSON.parse(limited[0]!.json)).to.deep.equal({ error: callLimitResult(10) });
    // Every call was answered in the next request, so the model's tool calls stay paired with results.
    const second = llm.chatCalls()[1]!.body.messages as any[];
    expect(second.filter((m) => m.role === "tool")).to.have.length(12);
    expect(emitted.filter((e) => e.event === "tool_result").map((e) => e.payload.ok)).to.deep.equal([...Array(10).fill(true), false, false]);
  });

  it("retries a tool whose query hit a database blip, with backoff, and feeds back its real result", async () => {
    const flaky = flakyDb(tools.db, 2);
    llm.enqueueReply({ toolCalls: [listCourses] }, { content: "Done." });
    const { events } = recorder();
    const started = performance.now();
    const result = await runToolLoop({
      deps: withConfig({ ADMIN_TOOL_RETRIES: 3, ADMIN_TOOL_RETRY_BASE_MS: 20 }),
      events,
      tools: { ...tools, db: flaky.db },
      messages: conversation(),
      prefix: "",
      writeBlocked: () => null,
      breaker: new ToolBreaker(),
    });
    expect(flaky.thrown()).to.equal(2);
    expect(result.runs[0]).to.include({ tool: "list_courses", ok: true });
    // Two backoffs (20 ms, then 40 ms) were waited before the third attempt.
    expect(performance.now() - started).to.be.at.least(60);
    const titles = JSON.parse(result.runs[0]!.json).courses.map((c: { title: string }) => c.title);
    expect(titles).to.include("Returns Essentials");
  });

  it("does not retry an error that is not a blip (a query Postgres refuses): the turn fails as before", async () => {
    const broken = flakyDb(tools.db, Number.POSITIVE_INFINITY, "42P01");
    llm.enqueueReply({ toolCalls: [listCourses] }, { content: "never" });
    const { events } = recorder();
    let failure: unknown;
    await runToolLoop({
      deps: withConfig({ ADMIN_TOOL_RETRIES: 3, ADMIN_TOOL_RETRY_BASE_MS: 1 }),
      events,
      tools: { ...tools, db: broken.db },
      messages: conversation(),
      prefix: "",
      writeBlocked: () => null,
      breaker: new ToolBreaker(),
    }).catch((error) => {
      failure = error;
    });
    expect((failure as { code?: string }).code).to.equal("42P01");
    expect(broken.thrown()).to.equal(1);
  });

  it("switches a tool that keeps failing off for its organisation: the next call in the cool-down is not attempted, the model is told, other orgs still run it", async () => {
    const down = flakyDb(tools.db, Number.POSITIVE_INFINITY, "57014");
    const breaker = new ToolBreaker();
    const settings = { ADMIN_TOOL_RETRIES: 1, ADMIN_TOOL_RETRY_BASE_MS: 1, ADMIN_TOOL_BREAKER_FAILURES: 2, ADMIN_TOOL_BREAKER_COOLDOWN_MS: 60_000 };
    // Round 1: two calls, each tried twice (a retry) and failing: the second failure trips the breaker.
    // Round 2: a third call, inside the cool-down.
    llm.enqueueReply({ toolCalls: [listCourses, listCourses] }, { toolCalls: [listCourses] }, { content: "The course list is unavailable right now." });
    const { events, emitted } = recorder();
    const result = await runToolLoop({
      deps: withConfig(settings),
      events,
      tools: { ...tools, db: down.db },
      messages: conversation(),
      prefix: "",
      writeBlocked: () => null,
      breaker,
    });
    expect(down.thrown(), "2 calls × 2 attempts, and none for the third").to.equal(4);
    expect(result.runs.map((run) => [run.round, run.ok])).to.deep.equal([
      [1, false],
      [1, false],
      [2, false],
    ]);
    expect(result.runs[0]!.error).to.match(/^list_courses failed: the database did not answer \(2 attempts\)/);
    expect(result.runs[1]!.error).to.match(/now switched off for about 60 s/);
    expect(result.runs[2]!.error).to.match(/^list_courses is switched off for about \d+ s .* It was not run\./);
    expect(result.runs[2]!.ms).to.be.below(50);
    // The model read why, in the tool result of the third call.
    const third = llm.chatCalls()[2]!.body.messages.at(-1);
    expect(JSON.parse(third.content)).to.deep.include({ unavailable: true });
    expect(emitted.filter((e) => e.event === "tool_result").map((e) => e.payload.ok)).to.deep.equal([false, false, false]);
    expect(breaker.openUntil(tools.orgId, "list_courses")).to.be.a("number");

    // Per organisation: another org's call of the same tool, through the same breaker, runs.
    llm.reset();
    const otherOrg = { ...tools, orgId: "00000000-0000-4000-8000-0000000000b2" };
    llm.enqueueReply({ toolCalls: [listCourses] }, { content: "None." });
    const other = await runToolLoop({
      deps: withConfig(settings),
      events,
      tools: otherOrg,
      messages: conversation(),
      prefix: "",
      writeBlocked: () => null,
      breaker,
    });
    expect(other.runs[0]).to.include({ ok: true });
    expect(JSON.parse(other.runs[0]!.json).courses).to.deep.equal([], "another organisation sees none of the demo org's courses");
    expect(breaker.openUntil(otherOrg.orgId, "list_courses")).to.equal(undefined);
  });

  it("runs a read tool the model calls, reports it, feeds the result back, and streams the answer after the prefix", async () => {
    llm.enqueueReply({ toolCalls: [{ name: "list_courses", arguments: {} }] }, { content: "We have the returns course." });
    const { events, emitted } = recorder();
    const messages = conversation();
    const result = await runToolLoop({ deps, events, tools, messages, prefix: "Earlier proposal cancelled.", writeBlocked: () => null });

    expect(result).to.include({ rounds: 2, cancelled: false });
    expect(result.text).to.equal("Earlier proposal cancelled.\n\nWe have the returns course.");
    expect(result.runs.map((run) => [run.tool, run.ok, run.round])).to.deep.equal([["list_courses", true, 1]]);
    expect(result.promptTokens).to.be.greaterThan(0);
    expect(emitted.map((e) => e.event).filter((name) => name !== "token")).to.deep.equal(["tool_call", "tool_result"]);
    const call = emitted.find((e) => e.event === "tool_call")!.payload;
    const reported = emitted.find((e) => e.event === "tool_result")!.payload;
    expect(call).to.include({ tool: "list_courses", round: 1 });
    expect(reported).to.include({ callId: call.callId, tool: "list_courses", ok: true });
    expect(reported.resultBytes).to.equal(Buffer.byteLength(result.runs[0]!.json));

    // The second request carried the assistant's tool call and the tool's result, in that order.
    const second = llm.chatCalls()[1]!.body;
    const [assistant, tool] = second.messages.slice(-2);
    expect(assistant.tool_calls[0]).to.deep.include({ id: call.callId });
    expect(tool).to.deep.include({ role: "tool", tool_call_id: call.callId });
    expect(JSON.parse(tool.content)).to.deep.equal(JSON.parse(result.runs[0]!.json));
    expect(second.tool_choice ?? "auto").to.not.equal("none");
  });

  it("does not run a write while writes are blocked: the model is told why instead", async () => {
    llm.enqueueReply(
      { toolCalls: [{ name: "archive_course", arguments: { course_id: stack.demo.courseIds.returnsEssentials } }] },
      { content: "I cannot do that yet." },
    );
    const { events, emitted } = recorder();
    const blocked = "Decide the pending proposal first.";
    const result = await runToolLoop({ deps, events, tools, messages: conversation(), prefix: "", writeBlocked: () => blocked });
    expect(proposals).to.deep.equal([]);
    expect(result.runs).to.have.length(1);
    expect(result.runs[0]).to.include({ tool: "archive_course", ok: false, error: blocked });
    expect(emitted.find((e) => e.event === "tool_result")!.payload).to.include({ ok: false, error: blocked });
    const fedBack = llm.chatCalls()[1]!.body.messages.at(-1);
    expect(JSON.parse(fedBack.content)).to.deep.equal({ error: blocked });
  });

  it("after ADMIN_MAX_TOOL_ROUNDS asks for an answer with tool_choice none and stops, however many tools the model still wants", async () => {
    llm.setResponder(() => ({ toolCalls: [{ name: "list_courses", arguments: {} }] }));
    const { events } = recorder();
    const result = await runToolLoop({ deps: withRounds(2), events, tools, messages: conversation(), prefix: "", writeBlocked: () => null });
    const calls = llm.chatCalls();
    expect(calls).to.have.length(3);
    expect(result.rounds).to.equal(3);
    expect(result.runs).to.have.length(2, "no tool is run from the last round");
    expect(calls.map((request) => request.body.tool_choice ?? "auto")).to.deep.equal(["auto", "auto", "none"]);
  });

  it("bounds rounds and calls by the organisation's own policy, over the defaults", async () => {
    const orgId = await freshOrganisation(stack, "Tool bounds");
    try {
      await stack.workers.deps.db.transaction((trx) => saveOrganisationPolicy(trx, orgId, { admin_tool_rounds: 1, admin_tool_calls_per_round: 2 }));
      llm.setResponder(() => ({ toolCalls: [1, 2, 3].map((limit) => ({ name: "list_courses", arguments: { limit } })) }));
      const { events } = recorder();
      const result = await runToolLoop({ deps, events, tools: { ...tools, orgId }, messages: conversation(), prefix: "", writeBlocked: () => null });
      const calls = llm.chatCalls();
      expect(
        calls.map((request) => request.body.tool_choice ?? "auto"),
        "one round, then the answer",
      ).to.deep.equal(["auto", "none"]);
      expect(
        result.runs.map((run) => [run.ok, run.error ?? null]),
        "two calls run, the third answered with the limit",
      ).to.deep.equal([
        [true, null],
        [true, null],
        [false, callLimitResult(2)],
      ]);
    } finally {
      await dropOrganisation(stack, orgId);
    }
  });

  it("stops before its next model call once the turn is cancelled", async () => {
    llm.enqueueReply({ toolCalls: [{ name: "list_courses", arguments: {} }] }, { content: "never asked" });
    const controller = new AbortController();
    let checks = 0;
    const cancel: CancelWatch = {
      signal: controller.signal,
      get cancelled() {
        return controller.signal.aborted;
      },
      // Cancelled while the first round's tool ran: the second round's check sees it.
      check: async () => {
        checks += 1;
        if (checks > 1) controller.abort();
        return controller.signal.aborted;
      },
      stop: () => undefined,
    };
    const { events } = recorder();
    const result = await runToolLoop({ deps, events, tools, messages: conversation(), prefix: "", writeBlocked: () => null, cancel });
    expect(result.cancelled).to.equal(true);
    expect(result.runs).to.have.length(1);
    expect(llm.chatCalls()).to.have.length(1);
  });
});
