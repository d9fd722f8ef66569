/**
 * The reasoning splitter: `<think>` blocks cut at every position a stream can cut them, nested and
 * unterminated blocks, the `reasoning_content`/`reasoning` fields interleaved with content, and a
 * whole reply whose thinking opened in the prompt.
 */
import { expect } from "chai";
import { ReasoningSplitter, type Split, type TextDelta, splitReasoning } from "../../../../workers/llm/reasoning-split";

/** Feeds the pieces in order and joins what came out. */
function feed(pieces: TextDelta[]): Split {
  const splitter = new ReasoningSplitter();
  const joined: Split = { answer: "", reasoning: "" };
  for (const piece of [...pieces.map((delta) => splitter.push(delta)), splitter.end()]) {
    joined.answer += piece.answer;
    joined.reasoning += piece.reasoning;
  }
  return joined;
}

const contents = (...pieces: string[]): TextDelta[] => pieces.map((content) => ({ content }));

// The thinking holds what a parser must never read as the answer: a label, JSON, a citation, a tag-like `<b>`.
const THINKING = 'The label could be off_topic; {"intent": "off_topic"} [9] a<b and <th';
const ANSWER = "Returns take 30 days [1]. Use a < b or <br> freely.";
const REPLY = `<think>\n${THINKING}\n</think>\n\n${ANSWER}`;

describe("ReasoningSplitter", () => {
  it("passes a reply without thinking through unchanged, whitespace and `<` included", () => {
    const text = "  Hello <b>there</b> a < b <t";
    expect(feed(contents(text))).to.deep.equal({ answer: text, reasoning: "" });
  });

  it("separates a leading <think> block, the answer without the blank line after it", () => {
    expect(feed(contents(REPLY))).to.deep.equal({ answer: ANSWER, reasoning: `${THINKING}\n` });
  });

  it("gives the same split at every position a stream can cut the reply into two pieces", () => {
    for (let cut = 0; cut <= REPLY.length; cut++) {
      expect(feed(contents(REPLY.slice(0, cut), REPLY.slice(cut))), `cut at ${cut}`).to.deep.equal({ answer: ANSWER, reasoning: `${THINKING}\n` });
    }
  });

  it("gives the same split for every pair of cuts around both tags, and one character at a time", () => {
    const close = REPLY.indexOf("</think>");
    for (let a = 0; a <= 8; a++) {
      for (let b = close - 1; b <= close + 9; b++) {
        const pieces = contents(REPLY.slice(0, a), REPLY.slice(a, b), REPLY.slice(b));
        expect(feed(pieces), `cuts at ${a} and ${b}`).to.deep.equal({ answer: ANSWER, reasoning: `${THINKING}\n` });
      }
    }
    expect(feed(contents(...REPLY))).to.deep.equal({ answer: ANSWER, reasoning: `${THINKING}\n` });
  });

  it("holds only what could still become a tag, so answer text streams on", () => {
    const splitter = new ReasoningSplitter();
    expect(splitter.push({ content: "One <th" })).to.deep.equal({ answer: "One ", reasoning: "" });
    expect(splitter.push({ content: "e end" })).to.deep.equal({ answer: "<the end", reasoning: "" });
    expect(splitter.push({ content: " </thi" })).to.deep.equal({ answer: " ", reasoning: "" });
    expect(splitter.end()).to.deep.equal({ answer: "</thi", reasoning: "" });
  });

  it("takes a block inside the answer out of it", () => {
    expect(feed(contents("Before. <think>second thoughts</think>After."))).to.deep.equal({ answer: "Before. After.", reasoning: "second thoughts" });
  });

  it("counts nested blocks: everything up to the outer close is thinking, inner tags dropped", () => {
    const nested = "<think>a <think>b</think> c</think>Answer";
    for (let cut = 0; cut <= nested.length; cut++) {
      expect(feed(contents(nested.slice(0, cut), nested.slice(cut))), `cut at ${cut}`).to.deep.equal({ answer: "Answer", reasoning: "a b c" });
    }
  });

  it("treats an unterminated block as thinking to the end: no answer at all", () => {
    expect(feed(contents("<think>I keep thinking", " and never answer {", '"intent": "progress"}', " </th"))).to.deep.equal({
      answer: "",
      reasoning: 'I keep thinking and never answer {"intent": "progress"} </th',
    });
  });

  it("drops a closing tag that closes nothing (in a stream it cannot take back what it showed)", () => {
    expect(feed(contents("Answer</think> more"))).to.deep.equal({ answer: "Answer more", reasoning: "" });
  });

  it("routes reasoning_content and reasoning fields to the thinking, interleaved with content", () => {
    const deltas: TextDelta[] = [
      { reasoning_content: "\nFirst I " },
      { reasoning_content: "check the sources.", content: null },
      { reasoning: " Then [2]." },
      { content: "\n\n" },
      { content: "The answer", reasoning_content: " (still thinking)" },
      { content: " is 30 days." },
    ];
    expect(feed(deltas)).to.deep.equal({ answer: "The answer is 30 days.", reasoning: "First I check the sources. Then [2]. (still thinking)" });
  });
});

describe("splitReasoning (a whole reply)", () => {
  it("splits a message's content and its reasoning fields", () => {
    expect(splitReasoning({ content: REPLY })).to.deep.equal({ answer: ANSWER, reasoning: `${THINKING}\n` });
    expect(splitReasoning({ content: "in_course", reasoning_content: "maybe off_topic" })).to.deep.equal({
      answer: "in_course",
      reasoning: "maybe off_topic",
    });
    expect(splitReasoning({ content: null })).to.deep.equal({ answer: "", reasoning: "" });
  });

  it("reads text before a closing tag with no opening one as thinking that began in the prompt", () => {
    expect(splitReasoning({ content: 'Okay, {"intent": "off_topic"}?\n</think>\n\n{"intent": "in_course"}' })).to.deep.equal({
      answer: '{"intent": "in_course"}',
      reasoning: 'Okay, {"intent": "off_topic"}?\n',
    });
  });
});
