/**
 * The tutor's token budgets follow the window the model is served with (LLM_CONTEXT_WINDOW, else
 * its name): for a small window the whole prompt — system prompt, trimmed history, sources cut to
 * their budget, the question — plus the reply's reserve fits, so nothing is refused.
 */
import { expect } from "chai";
import { fitMessagesToContext } from "../../../../../workers/llm/context-window";
import { countMessageTokens, countTokens } from "../../../../../workers/llm/tokens";
import { tutorSystemPrompt, tutorUserMessage } from "../../../../../workers/tutor/prompts";
import { budgetsFor, SYSTEM_PROMPT_TOKENS, tutorContextWindow } from "../../../../../workers/tutor/retrieval/budgets";
import { fitToBudget } from "../../../../../workers/tutor/retrieval/ladder";
import { numbered } from "../../../../../workers/tutor/retrieval/types";

const paragraph = (seed: string, words: number) => Array.from({ length: words }, (_, i) => `${seed}${i % 37} policy detail`).join(" ");

describe("the tutor's token budgets", () => {
  it("take LLM_CONTEXT_WINDOW over the model's name, else the smallest window of the chain", () => {
    expect(tutorContextWindow(3_000, ["gpt-4o"])).to.equal(3_000);
    expect(tutorContextWindow(undefined, ["gpt-4o", "my-local-model"])).to.equal(8_192);
    expect(tutorContextWindow(undefined, ["gpt-4o"])).to.equal(128_000);
  });

  it("keep the defaults for an 8K and a 16K window and scale up for a large one", () => {
    expect(budgetsFor(8_192)).to.include({ history: 2_000, generationReserve: 2_000 });
    expect(budgetsFor(16_000)).to.include({ history: 2_000, retrievedContext: 6_000, generationReserve: 2_000 });
    expect(budgetsFor(128_000)).to.include({ history: 16_000, retrievedContext: 24_000, generationReserve: 4_000 });
  });

  it("leave room for the system prompt as it really is", () => {
    for (const rung of ["chunks", "document", "general"] as const) {
      const prompt = tutorSystemPrompt({
        orgName: "Northwind Retail Group",
        language: "de",
        rung,
        intent: "in_course",
        userName: "Ana",
        courseTitle: "Returns essentials",
        lessonTitle: "Refund window",
      });
      expect(countTokens(prompt), rung).to.be.below(SYSTEM_PROMPT_TOKENS);
    }
  });

  for (const window of [2_048, 3_072, 4_096, 6_000, 8_192]) {
    it(`fit a whole prompt with long history and long sources in a ${window}-token window (trimmed, not refused)`, () => {
      const budgets = budgetsFor(window);
      const parts = budgets.history + budgets.retrievedContext + SYSTEM_PROMPT_TOKENS + budgets.userMessage + budgets.generationReserve;
      expect(parts, "the parts add up to the window at most").to.be.at.most(window);
      expect(budgets.generationReserve, "a reply still has room").to.be.at.least(500);

      const found = ["a", "b", "c", "d"].map((id) => ({
        document: `Handbook ${id}`,
        section: "Returns",
        page: null,
        sourceType: "document_chunk" as const,
        sourceId: id,
        content: paragraph(id, 400),
      }));
      const fitted = fitToBudget(found, budgets.retrievedContext, "en");
      expect(fitted.sources.length, "at least one passage is kept").to.be.greaterThan(0);
      const question = "How many days do customers have to return an item, and what do they need to bring?";
      const history = Array.from({ length: 12 }, (_, i) => [
        { role: "user", content: `Earlier question ${i}: ${paragraph("q", 40)}` },
        { role: "assistant", content: `Earlier answer ${i}: ${paragraph("r", 200)}` },
      ]).flat();
      const system = tutorSystemPrompt({ orgName: "Northwind Retail Group", language: "en", rung: "chunks", intent: "cross_course", userName: "Ana" });
      const messages = [{ role: "system", content: system }, ...history, { role: "user", content: tutorUserMessage(question, numbered(fitted.sources)) }];
      const sent = fitMessagesToContext(messages, window, budgets.generationReserve);
      expect(countMessageTokens(sent) + budgets.generationReserve, "prompt plus max_tokens").to.be.at.most(window);
      expect(sent[0]).to.equal(messages[0]);
      expect(sent.at(-1)!.content).to.include(question).and.to.include("[1] Handbook a");
      expect(sent.length, "older history was trimmed").to.be.lessThan(messages.length);
    });
  }
});
