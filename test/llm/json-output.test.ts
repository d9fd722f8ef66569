/** Structured output: extracting JSON from what models really send, and one repair round. */
import { expect } from "chai";
import { z } from "zod";
import { chatJson, extractJson, StructuredOutputError } from "../../workers/llm/json-output";
import { type ScriptedLlm, startScriptedLlm } from "../support/scripted-llm";
import { makeClient } from "./helpers";

describe("extractJson", () => {
  it("parses a fenced block with a trailing comma", () => {
    const reply = 'Here you go:\n```json\n{\n  "intent": "in_course",\n  "modules": [1, 2,],\n}\n```\nAnything else?';
    expect(extractJson(reply)).to.deep.equal({ intent: "in_course", modules: [1, 2] });
  });

  it("parses plain JSON, an unlabelled fence, and JSON embedded in prose", () => {
    expect(extractJson('  {"a": 1}  ')).to.deep.equal({ a: 1 });
    expect(extractJson("```\n[1, 2, 3]\n```")).to.deep.equal([1, 2, 3]);
    expect(extractJson('Sure! The answer is {"a": {"b": "x } y"}, "c": [1]} as requested.')).to.deep.equal({ a: { b: "x } y" }, c: [1] });
    expect(extractJson('Result: {"a": [1, 2,], "b": "ok",} done')).to.deep.equal({ a: [1, 2], b: "ok" });
  });

  it("fails clearly when there is no JSON", () => {
    expect(() => extractJson("I cannot help with that.")).to.throw(/no JSON/);
    expect(() => extractJson('{"unterminated": ')).to.throw(/no JSON/);
  });
});

describe("chatJson", () => {
  let llm: ScriptedLlm;
  const schema = z.object({ intent: z.enum(["in_course", "cross_course"]), confidence: z.number().min(0).max(1) });
  const messages = [{ role: "user" as const, content: "Classify: how do refunds work?" }];

  before(async () => {
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  it("returns the first valid reply without a repair round, asking for JSON mode", async () => {
    llm.enqueueReply({ content: '```json\n{"intent": "cross_course", "confidence": 0.8,}\n```' });
    const { client } = makeClient(llm);
    expect(await chatJson(client, { useCase: "tutor" }, messages, schema)).to.deep.equal({ intent: "cross_course", confidence: 0.8 });
    expect(llm.chatCalls()).to.have.length(1);
    expect(llm.chatCalls()[0]?.body.response_format).to.deep.equal({ type: "json_object" });
  });

  it("repairs once: an invalid reply, then a valid one, returns the valid one", async () => {
    llm.enqueueReply({ content: '{"intent": "refunds", "confidence": 3}' }, { content: '{"intent": "in_course", "confidence": 0.9}' });
    const { client, rows } = makeClient(llm);
    expect(await chatJson(client, { useCase: "tutor" }, messages, schema)).to.deep.equal({ intent: "in_course", confidence: 0.9 });
    const calls = llm.chatCalls();
    expect(calls).to.have.length(2);
    const repair = calls[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(repair.slice(0, 1)).to.deep.equal(messages);
    expect(repair[1]).to.deep.equal({ role: "assistant", content: '{"intent": "refunds", "confidence": 3}' });
    expect(repair[2]?.role).to.equal("user");
    expect(repair[2]?.content).to.contain("intent").and.to.contain("confidence");
    expect(rows).to.have.length(2, "both calls are paid for");
  });

  it("repairs a reply that is not JSON at all", async () => {
    llm.enqueueReply({ content: "The intent is in_course." }, { content: '{"intent": "in_course", "confidence": 1}' });
    const { client } = makeClient(llm);
    expect(await chatJson(client, { useCase: "tutor" }, messages, schema)).to.deep.equal({ intent: "in_course", confidence: 1 });
    expect(llm.chatCalls()[1]?.body.messages[2].content).to.contain("no JSON");
  });

  it("gives up with StructuredOutputError after two invalid replies", async () => {
    llm.enqueueReply(
      { content: '{"intent": "refunds", "confidence": 0.5}' },
      { content: '{"intent": "still wrong"}' },
      { content: '{"intent": "in_course", "confidence": 1}' },
    );
    const { client } = makeClient(llm);
    let caught: unknown;
    try {
      await chatJson(client, { useCase: "tutor" }, messages, schema);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(StructuredOutputError);
    expect((caught as Error).message)
      .to.contain("intent")
      .and.to.contain("confidence");
    expect(llm.chatCalls()).to.have.length(2, "exactly one repair round");
  });
});
