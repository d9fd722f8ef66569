/**
 * A tutor turn on a local model's habits, on the real stack with the scripted model: a
 * classification wrapped in prose and a ```json fence is read by its JSON (not by the first
 * label its reasoning mentions), an empty classification ends the turn with LLM_CONFIG_ERROR,
 * and a repeated question is not embedded twice.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { LlmClient } from "../../../workers/llm/client";
import { QueryEmbeddingCache } from "../../../workers/llm/query-embeddings";
import { stackSuite } from "../../support/suite";
import { FAST_RETRY } from "../llm/helpers";
import { ask, CLASSIFY_MARKER, chatRequestsContaining, removeFreshEmployees, scriptedResponder, signIn, type Learner } from "./helpers";

describe("the tutor on a local model", function () {
  const stack = stackSuite(this, { cleanUp: removeFreshEmployees });
  let employee: Learner;

  before(async () => {
    employee = await signIn(stack, "employee@example.com");
  });
  after(() => employee.socket.disconnect());

  it("reads a classification wrapped in prose and a code fence by its JSON", async () => {
    // Read for its first label, this reply would be cross_course; its JSON says off_topic.
    const label = [
      "Sure! Here is my classification:",
      "```json",
      '{"reasoning": "not cross_course nor in_course: it is about football", "intent": "off_topic"}',
      "```",
    ].join("\n");
    stack.llm.setResponder(scriptedResponder({ label }));
    const turn = await ask(stack, employee, "Who won the football match between the two teams last night?");
    expect(chatRequestsContaining(stack, CLASSIFY_MARKER)).to.have.length(1);
    expect(turn.errors).to.deep.equal([]);
    const classified = turn.events.find((e) => e.event === "stage" && e.payload.stage === "classify" && e.payload.status === "completed");
    expect(classified?.payload.detail).to.equal("off_topic");
    expect(turn.answer?.metadata).to.include({ intent: "off_topic" });
  });

  it("ends the turn with LLM_CONFIG_ERROR and a clear message when the classification comes back empty", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "" }));
    const turn = await ask(stack, employee, "What should I bring to the warehouse induction?");
    expect(turn.done).to.equal(undefined);
    expect(turn.errors).to.have.length(1);
    expect(turn.errors[0]!.payload.code).to.equal("LLM_CONFIG_ERROR");
    expect(turn.errors[0]!.payload.message).to.contain("intent classification").and.to.contain("LLM_MODEL_TUTOR");
    expect(chatRequestsContaining(stack, CLASSIFY_MARKER)).to.have.length(1, "a configuration error is not retried");
    expect(turn.answer?.status).to.equal("failed");
  });

  it("does not embed a repeated question again (query-embedding cache)", async () => {
    // The suites' stack runs with the cache off (test/harness/infrastructure.ts): this turn's workers get a client with it on.
    const uncached = stack.workers.deps.llm;
    stack.workers.deps.llm = new LlmClient(stack.config, { retry: FAST_RETRY, queryCache: new QueryEmbeddingCache(stack.workers.deps.redis, 300) });
    try {
      const question = `How many days do customers have to return an item? Reference ${randomUUID().slice(0, 8)}`;
      const embedsOf = () => stack.llm.embeddingCalls().filter((call) => JSON.stringify(call.body.input).includes(question.slice(-8)));
      const first = await ask(stack, employee, question);
      expect(first.done, "the first turn finished").to.not.equal(undefined);
      expect(embedsOf().length).to.be.greaterThan(0, "the first question is embedded");
      stack.llm.reset();
      const second = await ask(stack, employee, question);
      expect(second.done, "the second turn finished").to.not.equal(undefined);
      expect(second.grounding.rung).to.equal(first.grounding.rung, "the cached vector retrieves the same way");
      expect(embedsOf()).to.have.length(0, "no embedding call for the same question within the TTL");
    } finally {
      stack.workers.deps.llm = uncached;
    }
  });

  it("runs the suites' stack with the cache off, so a question asked twice is embedded twice", async () => {
    const question = `Where do I find the returns form? Reference ${randomUUID().slice(0, 8)}`;
    const embedsOf = () => stack.llm.embeddingCalls().filter((call) => JSON.stringify(call.body.input).includes(question.slice(-8)));
    await ask(stack, employee, question);
    await ask(stack, employee, question);
    expect(embedsOf()).to.have.length(2, "counting suites stay independent of the order they run in");
  });
});
