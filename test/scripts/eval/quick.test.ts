/**
 * The CI slice of `npm run eval`: the whole corpus through the upload API, the quick questions
 * through the chat API and socket, judged like the full run. Fails when recall@5 drops more
 * than 5 points below the committed baseline (eval/baseline.json), when the English answers
 * cite anything the sources do not support, or when a question the corpus does not answer (a
 * decoy sharing its title words included) is grounded at all.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { figures, invalidCitationCount, type Baseline } from "../../../scripts/eval/report";
import { evaluate, type QuestionResult } from "../../../scripts/eval/run";
import { allCorpusFiles, EVAL_DIR, loadQuestions } from "../../../scripts/eval/questions";
import { useStack, type Stack } from "../../support/stack";

/** How far recall@5 may fall below the baseline before CI fails, in points. */
const ALLOWED_DROP = 5;

describe("answer quality (quick evaluation subset)", function () {
  this.timeout(180_000);
  let stack: Stack;
  let results: QuestionResult[];
  let elapsedMs: number;
  const baseline = JSON.parse(readFileSync(join(EVAL_DIR, "baseline.json"), "utf8")) as Baseline;
  const quick = loadQuestions().filter((q) => q.quick);

  before(async function () {
    stack = await useStack();
    const started = performance.now();
    ({ results } = await evaluate(stack.server.deps.db, stack.baseUrl, quick, allCorpusFiles()));
    elapsedMs = performance.now() - started;
  });

  it("covers every kind of question and ends within a generous bound", () => {
    expect(new Set(quick.map((q) => q.kind))).to.include.members(["fact", "table", "two-passage", "paraphrase", "no-answer", "decoy", "spanish"]);
    expect(results).to.have.length(quick.length);
    expect(elapsedMs, "quick subset wall time").to.be.below(120_000);
  });

  it("keeps recall@5 within 5 points of the committed baseline", () => {
    const now = figures(results).recallAt5!;
    const before = baseline.groups.quick?.recallAt5;
    expect(before, "eval/baseline.json has no quick figure; run npm run eval -- --update-baseline").to.be.a("number");
    const misses = results.filter((r) => r.recall < 1).map((r) => `${r.question.id} ranks ${r.ranks.join(",")}`);
    expect(now, `recall@5 ${now} vs baseline ${before}; misses: ${misses.join("; ")}`).to.be.at.least(before! - ALLOWED_DROP);
  });

  it("never refuses, and every English citation points at a source that supports it", () => {
    expect(results.filter((r) => r.refused).map((r) => r.question.id)).to.deep.equal([]);
    const english = results.filter((r) => r.question.lang === "en");
    const invalid = english.filter((r) => invalidCitationCount(r) > 0).map((r) => `${r.question.id}: ${r.citations.unsupported.join(" / ")}`);
    expect(invalid).to.deep.equal([]);
    expect(
      english.reduce((sum, r) => sum + r.citations.markers, 0),
      "answers cite their sources",
    ).to.be.greaterThan(0);
  });

  it("answers no-answer questions on the general rung, saying so", () => {
    const general = results.filter((r) => r.question.rung === "general");
    expect(general.length).to.be.greaterThan(0);
    for (const r of general) {
      expect(r.rung, r.question.id).to.equal("general");
      expect(r.saidAloud, `${r.question.id}: ${r.answer}`).to.equal(true);
    }
  });

  it("grounds no question in sources that do not hold its answer, decoys sharing title words included", () => {
    const decoys = results.filter((r) => r.question.kind === "decoy");
    expect(decoys.length, "the quick subset has decoys in both languages").to.be.greaterThan(2);
    expect(new Set(decoys.map((r) => r.question.lang))).to.deep.equal(new Set(["en", "es"]));
    const unanswerable = results.filter((r) => r.question.passages.length === 0 && r.misleading);
    expect(unanswerable.map((r) => `${r.question.id} → ${r.rung}: ${r.sources.map((s) => s.document).join(", ")}`)).to.deep.equal([]);
  });

  it("names documents by their own titles in the grounding sources", () => {
    const titles = results.flatMap((r) => r.sources.map((s) => s.document));
    expect(titles).to.include("Shared MIME-info Database");
    expect(titles.some((title) => /^The Basics \(libffi/.test(title) || /^Thread Safety \(libffi/.test(title))).to.equal(true);
    expect(
      titles.filter((title) => /^libffi-|^nodejs-|\.html$/.test(title)),
      "no file-name titles where the document names itself",
    ).to.deep.equal([]);
  });
});
