/**
 * The tutor and the admin assistant on a model that thinks before it answers (the scripted model's
 * reasoning mode: `<think>` blocks cut across chunks, or `reasoning_content`), on the real stack.
 * The thinking — a trap naming a wrong label, a tool call, a citation of no source and the
 * step-down marker — streams as `reasoning` events before the answer's tokens and reaches nothing
 * else: not the tokens, the stored answer, the citations, the grounding, the classification, the
 * next turn's prompt, nor the tool calls.
 */
import { expect } from "chai";
import type { ReceivedEvent } from "../../harness/client";
import { THINKING_SENTINEL } from "../../harness/scripted-reasoning";
import { stackSuite } from "../../support/suite";
import { askAdmin, cleanUp, freshUser, scriptTurn } from "../admin/helpers";
import {
  ask,
  CLASSIFY_MARKER,
  chatRequestsContaining,
  freshEmployee,
  generationRequestsFor,
  promptOf,
  removeFreshEmployees,
  scriptedResponder,
} from "./helpers";

const thinkingOf = (events: ReceivedEvent[]): string =>
  events
    .filter((e) => e.event === "reasoning")
    .map((e) => e.payload.content as string)
    .join("");

describe("a reasoning model behind the tutor and the assistant", function () {
  const stack = stackSuite(this, {
    cleanUp: async (running) => {
      await removeFreshEmployees(running);
      await cleanUp(running);
    },
  });
  // The workers' client learnt the scripted model thinks: later suites must see it as it was.
  afterEach(() => stack.workers.deps.llm.reasoningModels.clear());

  it("streams a tutor turn's thinking as reasoning events before its tokens, and keeps it out of the answer, the next prompt and the classification", async () => {
    const learner = await freshEmployee(stack);
    stack.llm.setReasoning({ as: "think" });
    const first = await ask(stack, learner, "How many days do customers have to return an item?");
    expect(first.errors).to.deep.equal([]);
    expect(thinkingOf(first.events)).to.contain(THINKING_SENTINEL);
    const lastThought = first.names.lastIndexOf("reasoning");
    expect(lastThought, "thinking first, then the answer").to.be.within(0, first.names.indexOf("token"));
    expect(first.tokens).to.not.contain(THINKING_SENTINEL).and.not.contain("<think").and.not.contain("think>");
    expect(first.answer!.content).to.not.contain(THINKING_SENTINEL);
    expect(first.answer!.content.trim()).to.equal(first.tokens.trim());
    expect(first.answer!.content).to.contain("30");
    // The step-down marker and the [9] the thinking names step nothing down and cite nothing.
    expect(first.grounding.rung).to.equal("chunks");
    expect(first.names).to.not.include("grounding_update");
    expect(first.citations.length).to.be.greaterThan(0);
    expect(first.citations.map((c) => c.index)).to.not.include(9);

    // The next turn, a question the model must classify, on a server that sends reasoning_content.
    stack.llm.setReasoning({ as: "reasoning_content" });
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const question = "What should I pack for the offsite team day in the mountains?";
    const second = await ask(stack, learner, question, { session_id: first.sessionId });
    expect(second.errors).to.deep.equal([]);
    expect(second.sessionId).to.equal(first.sessionId);
    expect(chatRequestsContaining(stack, CLASSIFY_MARKER).length, "the model classified").to.be.greaterThan(0);
    const classified = second.events.find((e) => e.event === "stage" && e.payload.stage === "classify" && e.payload.status === "completed");
    expect(classified?.payload.detail, "not the off_topic the thinking names").to.equal("cross_course");
    expect(thinkingOf(second.events)).to.contain(THINKING_SENTINEL);
    expect(second.answer!.content).to.not.contain(THINKING_SENTINEL);
    const [generation] = generationRequestsFor(stack, question);
    expect(promptOf(generation!), "the history holds the first answer").to.contain(first.answer!.content.trim().slice(0, 40));
    for (const request of stack.llm.chatCalls()) {
      expect(promptOf(request), "no prompt holds thinking").to.not.contain(THINKING_SENTINEL);
      expect(JSON.stringify(request.body.messages)).to.not.contain("reasoning_content");
    }
  });

  it("runs an admin tool turn with a thinking model: the tool it called, not the one its thinking drafted, and an answer without thinking", async () => {
    const admin = await freshUser(stack, { role: "admin", name: "Thinking Admin" });
    stack.llm.setReasoning({ as: "think" });
    scriptTurn(stack, { calls: [{ name: "list_courses", arguments: {} }], answer: "There are three active courses." });
    const turn = await askAdmin(stack, admin, "Which courses do we have?");
    expect(turn.names.at(-1)).to.equal("done");
    expect(turn.events.filter((e) => e.event === "tool_call").map((e) => e.payload.tool)).to.deep.equal(["list_courses"]);
    expect(turn.toolResults[0]).to.include({ tool: "list_courses", ok: true });
    expect(thinkingOf(turn.events)).to.contain(THINKING_SENTINEL);
    expect(turn.tokens).to.equal("There are three active courses.");
    expect(turn.answer!.content).to.equal("There are three active courses.");
    // The second round was sent the first one's tool call, without the thinking that came with it.
    const rounds = stack.llm.chatCalls().filter((request) => promptOf(request).includes("Which courses do we have?"));
    expect(rounds).to.have.length(2);
    const secondRound = JSON.stringify(rounds[1]!.body.messages);
    expect(secondRound).to.contain("list_courses");
    expect(secondRound).to.not.contain(THINKING_SENTINEL);
  });
});
