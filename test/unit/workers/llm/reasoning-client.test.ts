/**
 * LlmClient against a scripted model that thinks before it answers, in each wire form
 * (`reasoning_content`, `reasoning`, `<think>` cut across chunks): the thinking reaches
 * `onReasoning` only, never the result; JSON, labels and tool calls (native and JSON tool mode)
 * are read from the answer alone; a short call that runs out of tokens while thinking is asked
 * once more with room to think, and the model's later calls get that room at once.
 */
import { expect } from "chai";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { REASONING_ALLOWANCE_TOKENS } from "../../../../workers/llm/reasoning-budget";
import { countMessageTokens } from "../../../../workers/llm/tokens";
import { DEFAULT_THINKING, THINKING_SENTINEL } from "../../../harness/scripted-reasoning";
import { type ScriptedLlm, startScriptedLlm } from "../../../harness/scripted-llm";
import { makeClient } from "../../../workers/llm/helpers";

const QUESTION = [{ role: "user" as const, content: "Classify: how many days do I have to return an item?" }];
const TOOLS: ChatCompletionTool[] = [
  { type: "function", function: { name: "list_courses", description: "Lists courses.", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "deactivate_employee", description: "Deactivates.", parameters: { type: "object", properties: {} } } },
];
const WIRES = ["reasoning_content", "reasoning", "think"] as const;

describe("LlmClient with a reasoning model", function () {
  this.timeout(20_000);
  let llm: ScriptedLlm;

  before(async () => {
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  for (const wire of WIRES) {
    describe(`thinking sent as ${wire}`, () => {
      it("streams the thinking to onReasoning and the answer to onToken, the result holding the answer alone", async () => {
        llm.setReasoning({ as: wire });
        llm.enqueueReply({ content: "Returns take thirty days [1]." });
        const { client, rows } = makeClient(llm);
        let tokens = "";
        let thinking = "";
        const result = await client.stream(
          { useCase: "generation" },
          QUESTION,
          { maxTokens: 2_000, onReasoning: (text) => void (thinking += text) },
          (text) => {
            tokens += text;
          },
        );
        expect(tokens).to.equal("Returns take thirty days [1].");
        expect(result.content).to.equal("Returns take thirty days [1].");
        expect(thinking.trim()).to.equal(DEFAULT_THINKING);
        expect(rows).to.have.length(1);
        expect(rows[0]!.completionTokens, "the thinking was generated, so it counts").to.be.greaterThan(60);
      });

      it("answers a one-piece call with the answer alone: the label and JSON the thinking names are not read", async () => {
        llm.setReasoning({ as: wire });
        llm.enqueueReply({ content: '{"intent": "in_course"}' });
        const { client } = makeClient(llm);
        const result = await client.chat({ useCase: "tutor" }, QUESTION, { maxTokens: 500, temperature: 0 });
        expect(result.content).to.equal('{"intent": "in_course"}');
        expect(result.content).not.to.contain(THINKING_SENTINEL);
      });

      it("reads native tool calls of a model that thought first, with no thinking in the content", async () => {
        llm.setReasoning({ as: wire });
        llm.enqueueReply({ content: "Let me look.", toolCalls: [{ name: "list_courses", arguments: {} }] });
        const { client } = makeClient(llm);
        let thinking = "";
        const result = await client.stream(
          { useCase: "admin" },
          QUESTION,
          { maxTokens: 1_500, tools: TOOLS, onReasoning: (text) => void (thinking += text) },
          () => {},
        );
        expect(result.toolCalls.map((call) => call.name)).to.deep.equal(["list_courses"]);
        expect(result.content).to.equal("Let me look.");
        expect(thinking).to.contain(THINKING_SENTINEL);
      });
    });
  }

  it("reads JSON tool mode from the answer: the tool call the thinking drafts is not made", async () => {
    llm.setReasoning({ as: "think" });
    llm.enqueueReply({ content: '{"tool_calls": [{"name": "list_courses", "arguments": {}}]}' }, { content: "No tool needed: thirty days." });
    const { client } = makeClient(llm, { LLM_TOOL_CALLING: "json" });
    const called = await client.stream({ useCase: "admin" }, QUESTION, { maxTokens: 1_500, tools: TOOLS }, () => {});
    expect(called.toolCalls.map((call) => call.name)).to.deep.equal(["list_courses"]);
    let shown = "";
    const answered = await client.chat({ useCase: "admin" }, QUESTION, { maxTokens: 1_500, tools: TOOLS });
    await client.stream({ useCase: "admin" }, QUESTION, { maxTokens: 1_500, tools: TOOLS }, (text) => void (shown += text));
    expect(answered.toolCalls).to.deep.equal([]);
    expect(answered.content).to.equal("No tool needed: thirty days.");
    expect(shown).not.to.contain(THINKING_SENTINEL).and.not.to.contain("deactivate_employee");
  });

  it("asks a short call that ran out of tokens thinking once more with room to think, and gives the model that room from then on", async () => {
    llm.setReasoning({ as: "reasoning_content" });
    llm.setResponder(() => ({ content: "in_course" }));
    const { client, rows } = makeClient(llm);
    const first = await client.chat({ useCase: "tutor" }, QUESTION, { maxTokens: 60, temperature: 0 });
    expect(first.content).to.equal("in_course");
    expect(llm.chatCalls().map((call) => call.body.max_tokens)).to.deep.equal([60, 60 + REASONING_ALLOWANCE_TOKENS]);
    expect(rows, "both calls are charged").to.have.length(2);
    expect(new Set(rows.map((row) => row.callKey)).size).to.equal(2);

    const second = await client.chat({ useCase: "tutor" }, QUESTION, { maxTokens: 20, temperature: 0 });
    expect(second.content).to.equal("in_course");
    expect(
      llm
        .chatCalls()
        .slice(2)
        .map((call) => call.body.max_tokens),
    ).to.deep.equal([20 + REASONING_ALLOWANCE_TOKENS]);
    await client.stream({ useCase: "generation" }, QUESTION, { maxTokens: 2_000 }, () => {});
    expect(llm.chatCalls().at(-1)!.body.max_tokens, "streams too").to.equal(2_000 + REASONING_ALLOWANCE_TOKENS);
  });

  it("never gives room to think past the context window (vLLM refuses prompt + max_tokens beyond it)", async () => {
    llm.setReasoning({ as: "think" });
    llm.setResponder(() => ({ content: "in_course" }));
    const { client } = makeClient(llm, { LLM_CONTEXT_WINDOW: "2048" });
    const result = await client.chat({ useCase: "tutor" }, QUESTION, { maxTokens: 60, temperature: 0 });
    expect(result.content).to.equal("in_course");
    const [first, again] = llm.chatCalls().map((call) => call.body.max_tokens as number);
    expect(first).to.equal(60);
    expect(again)
      .to.be.greaterThan(60)
      .and.at.most(2_048 - countMessageTokens(QUESTION));
  });

  it("sends a model that never thought exactly the budget its caller asked for", async () => {
    const { client } = makeClient(llm);
    await client.chat({ useCase: "tutor" }, QUESTION, { maxTokens: 60 });
    await client.stream({ useCase: "generation" }, QUESTION, { maxTokens: 2_000 }, () => {});
    expect(llm.chatCalls().map((call) => call.body.max_tokens)).to.deep.equal([60, 2_000]);
  });
});
