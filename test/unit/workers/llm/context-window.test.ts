/** Context windows, token counting and cost estimates. */
import { expect } from "chai";
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW, fitMessagesToContext, RESPONSE_RESERVE } from "../../../../workers/llm/context-window";
import { estimateCostUsd } from "../../../../workers/llm/costs";
import { countMessageTokens, countTokens, countTokensRemembered, messageTokensAtMost, tokensAtMost, truncateToTokens } from "../../../../workers/llm/tokens";

describe("contextWindowOf", () => {
  it("knows exact model names", () => {
    expect(contextWindowOf("gpt-4o")).to.equal(128_000);
    expect(contextWindowOf("gpt-3.5-turbo")).to.equal(16_385);
    expect(contextWindowOf("deepseek-chat")).to.equal(64_000);
    expect(contextWindowOf("offline-extractive")).to.equal(16_000);
  });

  it("uses the longest known prefix, ignoring case and a provider path", () => {
    expect(contextWindowOf("gpt-4o-2024-08-06")).to.equal(128_000);
    expect(contextWindowOf("gpt-4.1-mini")).to.equal(1_000_000);
    expect(contextWindowOf("GPT-4o-mini")).to.equal(128_000);
    expect(contextWindowOf("openrouter/deepseek-reasoner")).to.equal(64_000);
    expect(contextWindowOf("llama3.1:8b")).to.equal(128_000);
  });

  it("falls back to 8,192 for unknown models", () => {
    expect(DEFAULT_CONTEXT_WINDOW).to.equal(8_192);
    expect(contextWindowOf("my-local-model")).to.equal(8_192);
    expect(contextWindowOf("")).to.equal(8_192);
  });
});

describe("countTokensRemembered", () => {
  it("gives countTokens' count, the first time and every time after, for short, long and non-Latin texts", () => {
    const texts = [
      "",
      "hi",
      "How many days do I have to return an item for a refund? ".repeat(8),
      "¿Cuántos días tengo para devolver un artículo? Señal, acción. ".repeat(6),
      "漢字とかなの文章、そして絵文字 😀🎉👩‍👩‍👧 ".repeat(20),
    ];
    for (const text of texts)
      for (let i = 0; i < 3; i++) expect(countTokensRemembered(text), `${JSON.stringify(text.slice(0, 20))} #${i}`).to.equal(countTokens(text));
  });

  it("keeps counting right past its bound: it forgets the least recently used, never answers for another text", () => {
    // 4,000,000 characters held at most: 500 texts of 10,000 characters pass it twice over.
    const texts = Array.from({ length: 500 }, (_, i) => `${"word ".repeat(1_999)}${i}`);
    for (const text of texts) countTokensRemembered(text);
    for (const i of [0, 250, 499]) expect(countTokensRemembered(texts[i]!)).to.equal(countTokens(texts[i]!));
    expect(countTokensRemembered(`${texts[0]!} more`)).to.equal(countTokens(`${texts[0]!} more`));
  });
});

describe("countMessageTokens", () => {
  it("adds 2 for reply priming and 4 per message frame on top of role and content", () => {
    expect(countMessageTokens([])).to.equal(2);
    const text = "How many days do I have to return an item?";
    expect(countMessageTokens([{ role: "user", content: text }])).to.equal(2 + 4 + countTokens("user") + countTokens(text));
    expect(countMessageTokens([{ role: "user", content: null }])).to.equal(2 + 4 + countTokens("user"));
    const two = countMessageTokens([
      { role: "system", content: "Be brief." },
      { role: "user", content: text },
    ]);
    expect(two).to.equal(2 + 4 + countTokens("system") + countTokens("Be brief.") + 4 + countTokens("user") + countTokens(text));
  });

  it("counts a name minus one", () => {
    const plain = countMessageTokens([{ role: "user", content: "hi" }]);
    expect(countMessageTokens([{ role: "user", content: "hi", name: "alice" }])).to.equal(plain + countTokens("alice") - 1);
  });

  it("bounds every text's count from above by its UTF-8 length, framing and names included", () => {
    const texts = [
      "",
      "plain English words",
      "  \n\n\t  ",
      "¿Cuántos días tengo para devolver un artículo? Señal, acción.",
      "漢字とかなの文章、そして絵文字 😀🎉👩‍👩‍👧",
      "<|endoftext|> special tokens are text here",
      "0123456789".repeat(50),
      "\u0000\u0001 binary-ish \uFFFD",
    ];
    for (const text of texts) expect(tokensAtMost(text), JSON.stringify(text)).to.be.at.least(countTokens(text));
    const messages = texts.map((content, i) => ({ role: i % 2 ? "assistant" : "user", content, ...(i === 3 ? { name: "ana" } : {}) }));
    expect(messageTokensAtMost(messages)).to.be.at.least(countMessageTokens(messages));
  });

  it("truncateToTokens keeps short text and cuts long text within the budget", () => {
    expect(truncateToTokens("short text", 50)).to.deep.equal({ text: "short text", truncated: false });
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const cut = truncateToTokens(long, 100);
    expect(cut.truncated).to.equal(true);
    expect(countTokens(cut.text)).to.be.at.most(100);
    expect(long.startsWith(cut.text)).to.equal(true);
  });
});

describe("fitMessagesToContext", () => {
  const filler = (label: string) => `${label}: ${"lorem ipsum dolor sit amet ".repeat(200)}`;
  const system = { role: "system", content: "You are the tutor. Answer from the sources." };
  const history = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: filler(`turn ${i}`) }));
  const latest = { role: "user", content: "And what about gift cards?" };

  it("returns everything (as a new array) when it fits", () => {
    const messages = [system, history[0]!, latest];
    const fitted = fitMessagesToContext(messages, "gpt-4o");
    expect(fitted).to.deep.equal(messages);
    expect(fitted).not.to.equal(messages);
  });

  it("keeps the system message and the latest, dropping the oldest history first", () => {
    const messages = [system, ...history, latest];
    const budget = DEFAULT_CONTEXT_WINDOW - RESPONSE_RESERVE;
    expect(countMessageTokens(messages)).to.be.greaterThan(budget, "the fixture must overflow an unknown model's window");

    const fitted = fitMessagesToContext(messages, "unknown-model");
    expect(fitted[0]).to.equal(system);
    expect(fitted.at(-1)).to.equal(latest);
    const kept = fitted.slice(1, -1);
    expect(kept.length).to.be.greaterThan(0).and.lessThan(history.length);
    expect(kept).to.deep.equal(history.slice(history.length - kept.length), "a contiguous run of the most recent history");
    expect(countMessageTokens(fitted)).to.be.at.most(budget);
    // One more message from history would not have fitted.
    const oneMore = [system, history[history.length - kept.length - 1]!, ...kept, latest];
    expect(countMessageTokens(oneMore)).to.be.greaterThan(budget);
  });

  it("keeps more history for a larger window", () => {
    const messages = [system, ...history, latest];
    expect(fitMessagesToContext(messages, "unknown-model").length).to.be.lessThan(fitMessagesToContext(messages, "gpt-3.5-turbo").length);
    expect(fitMessagesToContext(messages, "gpt-4o")).to.have.length(messages.length);
  });

  it("works without a system message and with a single message", () => {
    const fitted = fitMessagesToContext([...history, latest], "unknown-model");
    expect(fitted.at(-1)).to.equal(latest);
    expect(fitted.every((message) => message.role !== "system")).to.equal(true);
    expect(fitMessagesToContext([latest], "unknown-model")).to.deep.equal([latest]);
    expect(fitMessagesToContext([], "unknown-model")).to.deep.equal([]);
  });

  it("never cuts the system message or the latest, even when they alone overflow", () => {
    const huge = { role: "user", content: filler("huge").repeat(8) };
    expect(countMessageTokens([system, huge])).to.be.greaterThan(DEFAULT_CONTEXT_WINDOW - RESPONSE_RESERVE);
    const fitted = fitMessagesToContext([system, ...history, huge], "unknown-model");
    expect(fitted).to.deep.equal([system, huge]);
  });
});

describe("estimateCostUsd", () => {
  it("prices gpt-4o-mini at $0.15 / $0.60 per million tokens", () => {
    expect(estimateCostUsd("gpt-4o-mini", 1_000_000, 0)).to.equal(0.15);
    expect(estimateCostUsd("gpt-4o-mini", 0, 1_000_000)).to.equal(0.6);
    expect(estimateCostUsd("gpt-4o-mini", 1_000, 500)).to.equal(0.00045);
    expect(estimateCostUsd("gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000)).to.equal(0.75);
    expect(estimateCostUsd("openai/GPT-4o-mini", 2_000_000, 0)).to.equal(0.3);
  });

  it("does not price gpt-4o-mini as gpt-4o", () => {
    expect(estimateCostUsd("gpt-4o", 1_000_000, 1_000_000)).to.equal(12.5);
  });

  it("counts local and unknown models as free", () => {
    expect(estimateCostUsd("llama3.1:8b", 1_000_000, 1_000_000)).to.equal(0);
    expect(estimateCostUsd("offline-extractive", 5_000, 5_000)).to.equal(0);
    expect(estimateCostUsd("scripted-model", 5_000, 5_000)).to.equal(0);
  });

  it("prices embedding calls as the client records them (`embedding:<model>`)", () => {
    expect(estimateCostUsd("text-embedding-3-small", 1_000_000, 0)).to.equal(0.02);
    expect(estimateCostUsd("embedding:text-embedding-3-small", 1_000_000, 0)).to.equal(0.02);
    expect(estimateCostUsd("embedding:intfloat/multilingual-e5-small", 1_000_000, 0)).to.equal(0);
  });
});
