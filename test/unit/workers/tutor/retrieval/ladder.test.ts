/** Fitting sources to the context budget (workers/tutor/retrieval/ladder.ts). */
import { expect } from "chai";
import { countTokens } from "../../../../../workers/llm/tokens";
import { TRUNCATION_MARKER, fitToBudget } from "../../../../../workers/tutor/retrieval/ladder";

describe("fitToBudget", () => {
  const source = (id: string, words: number) => ({
    document: "Doc",
    section: null,
    page: null,
    sourceType: "document_chunk" as const,
    sourceId: id,
    content: Array.from({ length: words }, (_, i) => `word${i}`).join(" "),
  });
  const cost = (s: { content: string }) => countTokens(s.content) + 20;

  it("keeps every source when they fit, untruncated and in order", () => {
    const sources = [source("a", 10), source("b", 10)];
    const fitted = fitToBudget(sources, cost(sources[0]!) + cost(sources[1]!), "en");
    expect(fitted.truncated).to.equal(false);
    expect(fitted.sources.map((s) => s.sourceId)).to.deep.equal(["a", "b"]);
    expect(fitted.sources[1]!.content).to.equal(sources[1]!.content);
  });

  it("stops at the first source that no longer fits and says so", () => {
    const sources = [source("a", 10), source("b", 200), source("c", 1)];
    const fitted = fitToBudget(sources, cost(sources[0]!) + 50, "en");
    expect(fitted.truncated).to.equal(true);
    expect(fitted.sources.map((s) => s.sourceId)).to.deep.equal(["a"]);
  });

  it("cuts a first source that alone is too big rather than dropping it, with a marker in the turn's language", () => {
    const big = source("big", 2_000);
    for (const language of ["en", "es"] as const) {
      const fitted = fitToBudget([big, source("next", 5)], 300, language);
      expect(fitted.truncated).to.equal(true);
      expect(fitted.sources).to.have.length(1);
      expect(fitted.sources[0]!.content.endsWith(TRUNCATION_MARKER[language])).to.equal(true);
      expect(fitted.sources[0]!.content.startsWith("word0 word1")).to.equal(true);
      expect(countTokens(fitted.sources[0]!.content.slice(0, -TRUNCATION_MARKER[language].length))).to.be.at.most(280);
    }
  });
});
