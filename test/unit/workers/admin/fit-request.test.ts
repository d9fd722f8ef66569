/**
 * fitAdminRequest (workers/admin/fit-request.ts), logic only: a request that fits is sent as it
 * is; one that does not loses, in this order, the earlier rounds' tool results (oldest first,
 * replaced by a note), then whole history turns (oldest first), then the current round's results
 * are cut to share what is left. The system part and the admin's message are never touched, and
 * every tool call keeps a result.
 */
import { expect } from "chai";
import { adminContextWindow, countRequestTokens, ELIDED_RESULT, fitAdminRequest } from "../../../../workers/admin/fit-request";
import type { ChatMessage } from "../../../../workers/llm/client";

const words = (n: number, word = "alpha") => Array.from({ length: n }, (_, i) => `${word}${i % 10}`).join(" ");
const call = (id: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "list_employees", arguments: "{}" } }],
});
const result = (id: string, size: number): ChatMessage => ({ role: "tool", tool_call_id: id, content: JSON.stringify({ rows: words(size, id) }) });

/** system, summary, 3 history turns, the admin's message, round 1 (call + result), round 2 (call + result). */
function request(resultSize = 600): { messages: ChatMessage[]; currentIndex: number } {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are the administration assistant." },
    { role: "system", content: "Summary of the earlier conversation: the admin asked about Sales." },
    { role: "user", content: `old question 1 ${words(150)}` },
    { role: "assistant", content: `old answer 1 ${words(150)}` },
    { role: "user", content: `old question 2 ${words(150)}` },
    { role: "assistant", content: `old answer 2 ${words(150)}` },
    { role: "user", content: `old question 3 ${words(150)}` },
    { role: "assistant", content: `old answer 3 ${words(150)}` },
    { role: "user", content: "Who is behind on Returns Essentials?" },
    call("r1"),
    result("r1", resultSize),
    call("r2"),
    result("r2", resultSize),
  ];
  return { messages, currentIndex: 8 };
}

const size = (messages: ChatMessage[]) => countRequestTokens(messages, 0);

describe("fitting an admin request to the context window", () => {
  it("sends a request that fits unchanged (settled by its byte bound, without tokenising, when the window is large)", () => {
    const { messages, currentIndex } = request();
    const fitted = fitAdminRequest({ messages, currentIndex, window: 100_000, reserve: 1_500, toolsTokens: 1_800 });
    expect(fitted.messages).to.deep.equal(messages);
    expect(fitted).to.include({ elidedResults: 0, droppedTurns: 0, cutResults: 0 });
  });

  it("first replaces the earlier round's result with a note, keeping the current round's and the whole history", () => {
    const { messages, currentIndex } = request();
    const full = size(messages);
    const fitted = fitAdminRequest({ messages, currentIndex, window: full - 100, reserve: 0, toolsTokens: 0 });
    expect(fitted).to.include({ elidedResults: 1, droppedTurns: 0, cutResults: 0 });
    expect(fitted.messages).to.have.length(messages.length);
    expect(fitted.messages[10]).to.deep.equal({ role: "tool", tool_call_id: "r1", content: ELIDED_RESULT });
    expect(fitted.messages[12]).to.deep.equal(messages[12]);
    expect(fitted.promptTokens).to.be.at.most(full - 100);
  });

  it("then drops whole history turns, oldest first, never the system part or the admin's message", () => {
    const { messages, currentIndex } = request();
    const withoutFirstResult = size([...messages.slice(0, 10), { ...messages[10]!, content: ELIDED_RESULT } as ChatMessage, ...messages.slice(11)]);
    const fitted = fitAdminRequest({ messages, currentIndex, window: withoutFirstResult - 300, reserve: 0, toolsTokens: 0 });
    expect(fitted.droppedTurns).to.be.within(1, 2);
    const contents = fitted.messages.map((m) => String(m.content ?? ""));
    expect(contents.slice(0, 2)).to.deep.equal([String(messages[0]!.content), String(messages[1]!.content)]);
    expect(contents.some((c) => c.startsWith("old question 1"))).to.equal(false);
    expect(
      contents.some((c) => c.startsWith("old answer 1")),
      "no answer is left without its question",
    ).to.equal(false);
    expect(contents).to.include("Who is behind on Returns Essentials?");
    expect(contents.some((c) => c.startsWith("old question 3"))).to.equal(true);
    expect(fitted.messages.at(-1)).to.deep.equal(messages.at(-1));
    expect(fitted.promptTokens).to.be.at.most(withoutFirstResult - 300);
  });

  it("as a last resort cuts the current round's results to what is left, saying so, and keeps every call paired with a result", () => {
    const { messages, currentIndex } = request(3_000);
    const fixed = size(
      messages.slice(0, 2).concat(messages.slice(8, 10), [{ ...messages[10]!, content: ELIDED_RESULT } as ChatMessage], messages.slice(11, 12)),
    );
    const window = fixed + 400;
    const fitted = fitAdminRequest({ messages, currentIndex, window, reserve: 0, toolsTokens: 0 });
    expect(fitted).to.include({ elidedResults: 1, droppedTurns: 3, cutResults: 1 });
    const last = JSON.parse(String(fitted.messages.at(-1)!.content));
    expect(last).to.include({ truncated: true });
    expect(last.partial).to.be.a("string").and.not.equal("");
    expect(fitted.messages.filter((m) => m.role === "tool").map((m) => (m as { tool_call_id: string }).tool_call_id)).to.deep.equal(["r1", "r2"]);
    expect(fitted.promptTokens).to.be.at.most(window);
  });

  it("counts the tools' schema and the reply's reserve against the window", () => {
    const { messages, currentIndex } = request();
    const full = size(messages);
    expect(fitAdminRequest({ messages, currentIndex, window: full + 2_000, reserve: 1_000, toolsTokens: 900 }).elidedResults).to.equal(0);
    expect(fitAdminRequest({ messages, currentIndex, window: full + 2_000, reserve: 1_500, toolsTokens: 900 }).elidedResults).to.equal(1);
  });

  it("takes LLM_CONTEXT_WINDOW when set, else the smallest window of the admin model chain", () => {
    expect(adminContextWindow(8_192, ["gpt-4o"])).to.equal(8_192);
    expect(adminContextWindow(undefined, ["gpt-4o", "gpt-3.5-turbo"])).to.equal(16_385);
    expect(adminContextWindow(undefined, ["my-local-model"])).to.equal(8_192);
    expect(adminContextWindow(undefined, [])).to.equal(8_192);
  });
});
