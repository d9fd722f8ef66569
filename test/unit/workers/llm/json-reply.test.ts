/**
 * The JSON extractor and the JSON tool-call protocol, as local models actually answer: bare
 * JSON, ```json fences, JSON amid prose, Llama's `parameters`, and replies that hold nothing.
 */
import { expect } from "chai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { extractJson } from "../../../../workers/llm/json-reply";
import { asJsonToolMessages, ProseGate, readToolReply } from "../../../../workers/llm/json-tools";

describe("extractJson", () => {
  it("parses a bare reply, object or array", () => {
    expect(extractJson('{"intent": "in_course"}')).to.deep.equal({ intent: "in_course" });
    expect(extractJson("  [1, 2]\n")).to.deep.equal([1, 2]);
  });

  it("takes a fenced block, with or without a language tag", () => {
    expect(extractJson('Here you go:\n```json\n{"intent": "progress"}\n```\nHope that helps!')).to.deep.equal({ intent: "progress" });
    expect(extractJson('```\n{"a": 1}\n```')).to.deep.equal({ a: 1 });
    expect(extractJson('```JSON {"a": 2}```')).to.deep.equal({ a: 2 });
  });

  it("finds the first balanced object in prose, braces inside strings included", () => {
    expect(extractJson('Sure! {"note": "a } in text", "n": {"deep": [1, {"x": "]"}]}} and more {"b": 2}')).to.deep.equal({
      note: "a } in text",
      n: { deep: [1, { x: "]" }] },
    });
    expect(extractJson('The call is {"name": "say \\"hi\\" {"} ok')).to.deep.equal({ name: 'say "hi" {' });
  });

  it("skips a brace that opens nothing parseable and keeps looking", () => {
    expect(extractJson('Use {braces} sparingly. {"ok": true}')).to.deep.equal({ ok: true });
    expect(extractJson("a [1] b")).to.deep.equal([1]);
  });

  it("gives up after 64 openings, so a reply full of unclosed braces costs linear time", () => {
    expect(extractJson(`${"{".repeat(10_000)} {"late": true}`)).to.equal(undefined);
    expect(extractJson(`${"{x} ".repeat(10)}{"early": true}`)).to.deep.equal({ early: true });
  });

  it("repairs nothing: trailing commas, single quotes and cut-off JSON give undefined", () => {
    expect(extractJson('{"a": 1,}')).to.equal(undefined);
    expect(extractJson("{'a': 1}")).to.equal(undefined);
    expect(extractJson('```json\n{"a": [1, 2\n```')).to.equal(undefined);
    expect(extractJson("")).to.equal(undefined);
    expect(extractJson("in_course")).to.equal(undefined);
  });
});

describe("readToolReply", () => {
  it("reads the format we ask for, a bare call, Llama's `parameters` and an array", () => {
    expect(readToolReply('{"tool_calls": [{"name": "get_course_stats", "arguments": {"course": "Returns"}}]}')).to.deep.equal({
      calls: [{ name: "get_course_stats", arguments: '{"course":"Returns"}' }],
    });
    expect(readToolReply('I will check.\n```json\n{"name": "list_alerts", "parameters": {}}\n```')).to.deep.equal({
      calls: [{ name: "list_alerts", arguments: "{}" }],
    });
    expect(readToolReply('[{"name": "a", "arguments": {"x": 1}}, {"name": "b"}]')).to.deep.equal({
      calls: [
        { name: "a", arguments: '{"x":1}' },
        { name: "b", arguments: "{}" },
      ],
    });
  });

  it("treats prose, and JSON that is not a tool call, as an answer", () => {
    expect(readToolReply("Three people are overdue.")).to.deep.equal({ calls: [] });
    expect(readToolReply('The export looks like {"department": "Sales", "count": 3}.')).to.deep.equal({ calls: [] });
  });

  it("says why a reply shaped like a tool call is unusable (strict schema)", () => {
    const badArguments = readToolReply('{"tool_calls": [{"name": "a", "arguments": "course=Returns"}]}');
    expect(badArguments).to.have.property("unusable").that.contains("tool_calls");
    expect(readToolReply('{"tool_calls": []}')).to.have.property("unusable");
    expect(readToolReply('{"name": "a", "arguments": {}, "reason": "extra keys are refused"}')).to.have.property("unusable");
  });
});

describe("asJsonToolMessages", () => {
  const tools: ChatCompletionTool[] = [
    { type: "function", function: { name: "list_alerts", description: "Open alerts.", parameters: { type: "object", properties: {} } } },
  ];

  it("appends the tools to the system prompt and rewrites tool traffic to plain text", () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "You are the admin assistant." },
      { role: "user", content: "Any alerts?" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "list_alerts", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: '{"alerts": []}' },
    ];
    const wire = asJsonToolMessages(messages, tools, false);
    expect(wire.map((message) => message.role)).to.deep.equal(["system", "user", "assistant", "user"]);
    expect(wire[0]!.content).to.contain("You are the admin assistant.").and.to.contain("list_alerts: Open alerts.").and.to.contain('"tool_calls"');
    expect(wire[2]!.content).to.equal('{"tool_calls":[{"name":"list_alerts","arguments":{}}]}');
    expect(wire[3]!.content).to.equal('Result of the tool list_alerts:\n{"alerts": []}');
    expect(messages[0]!.content).to.equal("You are the admin assistant.", "the caller's messages are not changed");
  });

  it("asks for a plain answer on the last round", () => {
    const wire = asJsonToolMessages([{ role: "user", content: "Hi" }], tools, true);
    expect(wire[0]!.role).to.equal("system");
    expect(wire[0]!.content).to.contain("Do not call any tool now").and.not.to.contain('{"tool_calls"');
  });
});

describe("ProseGate", () => {
  it("shows prose at once and holds back from the first brace or fence", () => {
    const gate = new ProseGate();
    const shown = ["I'll look ", "that up. ", '{"tool', '_calls": []}'].map((piece) => gate.push(piece));
    expect(shown).to.deep.equal(["I'll look ", "that up. ", "", ""]);
    expect(gate.shown).to.equal("I'll look that up. ");
    expect(gate.release()).to.equal('{"tool_calls": []}');
  });

  it("holds a backtick that may start a fence split over tokens", () => {
    const gate = new ProseGate();
    expect(gate.push("Sure `")).to.equal("Sure ");
    expect(gate.push("``json")).to.equal("");
    expect(gate.push("\n{}")).to.equal("");
    const plain = new ProseGate();
    expect(plain.push("a `code` word")).to.equal("a `code` word");
  });
});
