/**
 * Pure pieces of grounding by relevance, no stack: question terms and their stems in English and
 * Spanish, rarity-weighted coverage, the hit test, and the answer guard's step-down marker.
 */
import { expect } from "chai";
import type { ChunkHit } from "../../../../db/queries/knowledge-search";
import { AnswerGuard } from "../../../../workers/tutor/answer-guard";
import { grounds } from "../../../../workers/tutor/retrieval/hybrid-search";
import { passagesOf } from "../../../../workers/tutor/retrieval/document-passages";
import { clausesOf, contentTermsOf, occursAs, termStem } from "../../../../workers/tutor/retrieval/question-terms";
import { rarity, relevanceOf } from "../../../../workers/tutor/retrieval/relevance";
import { STEP_DOWN_MARKER } from "../../../../workers/tutor/step-down";

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
    expect(contentTermsOf("¿Cuál es la política?")[0]).to.deep.include({ stem: "politica", query: "politica:* | política:*", everyday: false, clause: 0 });
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

  describe("an employee's own wording", () => {
    const stems = (question: string) => contentTermsOf(question).map((t) => `${t.stem}${t.everyday ? "~" : ""}@${t.clause}`);

    it("splits two questions in one, and folds a clause of everyday words into the one before", () => {
      expect(clausesOf("How long is the refund window? And which items are final sale?")).to.have.length(2);
      expect(clausesOf("¿Qué EPP es obligatorio y cuánto peso puedo levantar?")).to.have.length(2);
      expect(clausesOf("Someone paid 350 EUR in cash and wants a refund: do I give them cash?")).to.have.length(1);
      expect(stems("How many days do I have to return a product, and what do I need to bring?")).to.deep.equal(["day~@0", "return@0", "product@0", "bring~@0"]);
      expect(stems("When do I escalate a ticket, and which code do I tag it with?")).to.deep.equal(["escalate@0", "ticket@0", "code@1", "tag@1"]);
    });

    it("meets a word's family and the phrases that stand for one word, in English and Spanish", () => {
      const [product] = contentTermsOf("Can I return this product?").filter((t) => t.stem === "product");
      expect(product!.forms).to.include.members(["item", "good"]);
      expect(product!.query).to.include("items").and.include("merchand:*");
      expect(contentTermsOf("Can shoppers bring items back?").map((t) => t.stem)).to.include("return");
      expect(contentTermsOf("¿Puedo devolver un artículo?").find((t) => t.stem === "devolver")!.forms).to.include("devoluci");
      expect(termStem("levantar")).to.equal("levant");
      expect(termStem("customer"), "English -er is not an infinitive").to.equal("customer");
    });

    it("matches short stems as words, long ones as prefixes", () => {
      expect(occursAs("day", "days")).to.equal(true);
      expect(occursAs("form", "format")).to.equal(false);
      expect(occursAs("exam", "example")).to.equal(false);
      expect(occursAs("walk", "walking")).to.equal(true);
      expect(occursAs("refund", "refunded")).to.equal(true);
    });

    it("weighs everyday words and counts for a fifth: sharing 'days' and 'year' does not cover a question about sick days", () => {
      const terms = contentTermsOf("How many sick days do I get per year?");
      expect(terms.map((t) => t.stem)).to.deep.equal(["sick", "day", "year"]);
      // The demo's rarities: "sick" in no chunk, "days" in three, "year" in one of eleven.
      const relevance = relevanceOf(terms, [rarity(0, 11), rarity(3, 11), rarity(1, 11)]);
      const receipts =
        "Without any proof of purchase the customer may receive store credit for the lowest selling price of the item in the last 60 days, limited to three receipt-less returns per customer per year.";
      expect(relevance.coverage(receipts)).to.be.lessThan(0.3);
      expect(relevance.coverage("Employees get ten paid sick days a year.")).to.equal(1);
    });

    it("judges a question of two clauses by the clause a passage answers", () => {
      const terms = contentTermsOf("How long is the refund window, and which items are final sale?");
      const relevance = relevanceOf(
        terms,
        terms.map(() => 2),
      );
      expect(relevance.coverage("Items marked as final sale cannot be returned.")).to.equal(1);
      expect(relevance.coverage("Sale prices are shown on the shelf.")).to.be.lessThan(0.55);
    });

    it("cuts a document into passages at its headings, leaving out its title line", () => {
      const text = "# Manual\n\n## 1. EPP\n\nCalzado de seguridad.\n\n## 2. Cargas\n\nMáximo 25 kg.";
      expect(passagesOf(text, "Manual")).to.deep.equal(["## 1. EPP\n\nCalzado de seguridad.", "## 2. Cargas\n\nMáximo 25 kg."]);
      const long = Array.from({ length: 6 }, (_, i) => `Paragraph ${i} ${"word ".repeat(80)}`).join("\n\n");
      expect(passagesOf(long, "Other").length).to.be.greaterThan(1);
    });
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
