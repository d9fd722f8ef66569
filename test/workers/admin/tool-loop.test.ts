/**
 * runToolLoop (workers/admin/tool-loop.ts) with the real model client against the scripted
 * model and real read tools on the demo organisation: rounds of tool calls, each announced and
 * reported, results fed back to the model; a blocked write not run; the last round forced to
 * answer (tool_choice none); a cancelled turn stopping before its next model call.
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
import { runToolLoop } from "../../../workers/admin/tool-loop";
import type { TurnEmitter } from "../../../workers/turns/turn-emitter";
import type { WorkerDeps } from "../../../workers/deps";
import { useStack, type Stack } from "../../support/stack";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";
import { makeClient } from "../llm/helpers";

type Emitted = { event: TurnEventName; payload: any };

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
  const withRounds = (rounds: number): WorkerDeps => ({ ...deps, config: { ...deps.config, ADMIN_MAX_TOOL_ROUNDS: rounds } });

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
