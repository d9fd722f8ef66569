/**
 * Pure pieces of grounding by relevance, no stack: question terms and their stems in English and
 * Spanish, rarity-weighted coverage, the hit test, and the answer guard's step-down marker.
 */
import { expect } from "chai";
import type { ChunkHit } from "../../../db/queries/knowledge-search";
import { AnswerGuard } from "../../../workers/tutor/answer-guard";
import { grounds } from "../../../workers/tutor/retrieval/hybrid-search";
import { contentTermsOf, termStem } from "../../../workers/tutor/retrieval/question-terms";
import { rarity, relevanceOf } from "../../../workers/tutor/retrieval/relevance";
import { STEP_DOWN_MARKER } from "../../../workers/tutor/step-down";

const hit = (content: string, similarity = 0): ChunkHit => ({
  id: "c1",
  document_id: "d1",
  document_title: "Returns Policy Manual",
  content,
  position: 0,
  metadata: {},
  similarity,
  text_rank: 0,
});

describe("grounding by relevance (units)", () => {
  it("stems plural and singular alike, in English and Spanish", () => {
    expect(termStem("policies")).to.equal(termStem("policy"));
    expect(termStem("returns")).to.equal("return");
    expect(termStem("vacaciones")).to.equal("vacaci");
    expect("vacacion".startsWith(termStem("vacaciones"))).to.equal(true);
    expect(termStem("installed")).to.equal("install");
  });

  it("keeps what a question is about and drops the words every question is framed with", () => {
    expect(contentTermsOf("What does the company say about remote work?").map((t) => t.stem)).to.deep.equal(["remote", "work"]);
    expect(contentTermsOf("¿Qué dice el manual sobre las vacaciones?").map((t) => t.stem)).to.deep.equal(["manual", "vacaci"]);
    // Accented and accent-free forms both reach the full-text query.
    expect(contentTermsOf("¿Cuál es la política?")[0]).to.deep.equal({ stem: "politica", query: "politica:* | política:*" });
  });

  it("weighs a term by its rarity: one held by every chunk weighs nearly nothing, an absent one most", () => {
    expect(rarity(100, 100)).to.be.lessThan(0.01);
    expect(rarity(0, 100)).to.be.greaterThan(rarity(1, 100));
    expect(rarity(1, 100)).to.be.greaterThan(rarity(30, 100));
  });

  it("covers a question only when the passage holds its distinctive terms", () => {
    const terms = contentTermsOf("What is our policy on remote work?");
    // "policy" is in most of the org's chunks, "remote" and "work" in none.
    const relevance = relevanceOf(terms, [rarity(40, 50), rarity(0, 50), rarity(0, 50)]);
    const returns = "Our returns policy: customers may return most items within 30 days.";
    expect(relevance.coverage(returns)).to.be.lessThan(0.05);
    expect(relevance.coverage("Remote work is allowed two days a week under this policy.")).to.equal(1);
    expect(grounds(hit(returns), relevance, { coverage: 0.55, similarity: 0.5 })).to.equal(false);
    // A close enough embedding grounds whatever the words.
    expect(grounds(hit(returns, 0.8), relevance, { coverage: 0.55, similarity: 0.5 })).to.equal(true);
    expect(relevanceOf([], []).coverage(returns)).to.equal(0);
  });

  describe("the answer guard's step-down marker", () => {
    it("takes out a marker split across deltas, reports it and keeps no citation", () => {
      const guard = new AnswerGuard(new Set([1, 2]), "", { stepDown: true });
      let shown = guard.push("[[NOT_IN");
      expect(shown, "a possible marker is held back").to.equal("");
      shown += guard.push("_SOURCES]]");
      shown += guard.push(" General knowledge: rice [1] and saffron [2].");
      shown += guard.end();
      expect(guard.steppedDown).to.equal(true);
      expect(shown).to.equal("General knowledge: rice and saffron.");
      expect(guard.text).to.equal(shown);
    });

    it("drops citations already shown from the stored text when the marker comes late", () => {
      const guard = new AnswerGuard(new Set([1]), "", { stepDown: true });
      const shown = guard.push("Refunds take 30 days [1]. ") + guard.push(`${STEP_DOWN_MARKER} Actually, no.`) + guard.end();
      expect(shown).to.include("[1]");
      expect(guard.steppedDown).to.equal(true);
      expect(guard.text).to.not.include("[1]");
      expect(guard.text).to.not.include(STEP_DOWN_MARKER);
    });

    it("leaves an answer without the marker, and a turn that may not step down, as they are", () => {
      const grounded = new AnswerGuard(new Set([1]), "", { stepDown: true });
      expect(grounded.push("Within 30 days [1].") + grounded.end()).to.equal("Within 30 days [1].");
      expect(grounded.steppedDown).to.equal(false);
      const general = new AnswerGuard(new Set(), "");
      general.push(`${STEP_DOWN_MARKER} Hi`);
      general.end();
      expect(general.steppedDown).to.equal(false);
    });
  });
});
