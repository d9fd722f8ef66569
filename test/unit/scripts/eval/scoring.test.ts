/** The harness's judge: passage ranks, recall and MRR, citation checks, refusals, and the question set itself. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { extractDocument } from "../../../../workers/ingestion/extract";
import type { DocumentFormat } from "../../../../lib/document-formats";
import { groundingFigures, loadGroundingQuestions } from "../../../../scripts/eval/grounding";
import { CORPUS_DIR, allCorpusFiles, loadQuestions } from "../../../../scripts/eval/questions";
import type { QuestionResult } from "../../../../scripts/eval/run";
import {
  checkCitations,
  containsFact,
  isMisleading,
  isRefusal,
  passageRanks,
  recallAt5,
  reciprocalRank,
  saysGeneralKnowledge,
  type JudgedSource,
} from "../../../../scripts/eval/scoring";

const source = (index: number, documentId: string, content: string): JudgedSource => ({ index, documentId, content });

describe("evaluation scoring", () => {
  it("matches a key fact word by word, ignoring case, accents and markdown punctuation", () => {
    expect(containsFact("| [Domain](domain.html) | (0) Deprecated |", "Domain](domain.html) | (0) Deprecated")).to.equal(true);
    expect(containsFact("Los enteros usan como default i32", "los ENTEROS usan")).to.equal(true);
    expect(containsFact("The cif stands for Call InterFace", "stands for Call Interface")).to.equal(true);
    expect(containsFact("The cif stands for Call", "stands for Call Interface")).to.equal(false);
    expect(containsFact("uncall interface", "call interface"), "whole words only").to.equal(false);
  });

  it("ranks the expected passages among the top five sources of the right document", () => {
    const ids = new Map([
      ["a.md", "doc-a"],
      ["b.md", "doc-b"],
    ]);
    const sources = [source(2, "doc-a", "refunds take 30 days"), source(1, "doc-b", "refunds take 30 days"), source(3, "doc-b", "ports are 5432")];
    const question = {
      passages: [
        { file: "a.md", fact: "30 days" },
        { file: "b.md", fact: "port 8080" },
      ],
    };
    const ranks = passageRanks(question, sources, ids);
    expect(ranks, "right words in the wrong document do not count").to.deep.equal([2, 0]);
    expect(recallAt5(ranks)).to.equal(0.5);
    expect(reciprocalRank(ranks)).to.equal(0.5);
    expect(reciprocalRank([0])).to.equal(0);
    const sixth = passageRanks(
      { passages: [{ file: "a.md", fact: "late" }] },
      [1, 2, 3, 4, 5, 6].map((i) => source(i, "doc-a", i === 6 ? "late" : "x")),
      ids,
    );
    expect(sixth, "only the top five count").to.deep.equal([0]);
  });

  it("flags markers that name no source and claims their source does not support", () => {
    const sources = [source(1, "d", "Refunds are paid within 30 days of the return."), source(2, "d", "Parking is in zone B.")];
    const good = checkCitations("According to the company material: Refunds are paid within 30 days [1]. Parking is in zone B [2].", sources);
    expect(good).to.deep.equal({ markers: 2, dangling: 0, unsupported: [] });
    const bad = checkCitations("Refunds are paid within 30 days [3]. Staff get a free car wash every Friday [2].", sources);
    expect(bad.dangling).to.equal(1);
    expect(bad.unsupported).to.have.length(1);
    expect(bad.unsupported[0]).to.include("car wash");
  });

  it("recognises refusals and general-knowledge answers said aloud", () => {
    expect(isRefusal("I'm sorry, I can't help with that.")).to.equal(true);
    expect(isRefusal("Lo siento, no puedo responder.")).to.equal(true);
    expect(isRefusal("")).to.equal(true);
    expect(isRefusal("This is not from company material: France won in 1998.")).to.equal(false);
    expect(saysGeneralKnowledge("This is not from company material: France won.")).to.equal(true);
    expect(saysGeneralKnowledge("Esto no proviene del material de la empresa: Canberra.")).to.equal(true);
    expect(saysGeneralKnowledge("France won.")).to.equal(false);
  });

  it("calls grounding misleading when no expected passage is among the sources, and never on the general rung", () => {
    expect(isMisleading("chunks", []), "a decoy grounded at all").to.equal(true);
    expect(isMisleading("document", [0]), "an answerable question grounded without its passage").to.equal(true);
    expect(isMisleading("chunks", [0, 3])).to.equal(false);
    expect(isMisleading("general", [])).to.equal(false);
    expect(isMisleading("general", [0])).to.equal(false);
  });

  it("has 30 or more decoys, in English and Spanish, all expecting the general rung", () => {
    const decoys = loadQuestions().filter((q) => q.kind === "decoy");
    expect(decoys.length).to.be.at.least(30);
    expect(decoys.every((q) => q.rung === "general" && q.passages.length === 0)).to.equal(true);
    expect(decoys.filter((q) => q.lang === "es").length).to.be.at.least(10);
    expect(decoys.filter((q) => q.lang === "en").length).to.be.at.least(10);
  });

  it("has 20 or more traps and 20 or more covered questions on the demo material, some in Spanish, each fact in its seeded document", () => {
    // loadGroundingQuestions throws when a fact is not in the seed's text of its document.
    const questions = loadGroundingQuestions();
    const traps = questions.filter((q) => q.kind === "trap");
    const covered = questions.filter((q) => q.kind === "covered");
    expect(traps.length).to.be.at.least(20);
    expect(covered.length).to.be.at.least(20);
    expect(traps.every((q) => q.rung === "general" && q.passages.length === 0)).to.equal(true);
    expect(covered.every((q) => q.passages.length > 0 && q.passages.every((p) => p.file.startsWith("demo:")))).to.equal(true);
    expect(traps.filter((q) => q.lang === "es").length).to.be.at.least(3);
    expect(covered.filter((q) => q.lang === "es").length).to.be.at.least(3);
  });

  it("counts a grounded trap as misleading, and a covered question only when grounded in its passage", () => {
    const [trap, covered] = [loadGroundingQuestions().find((q) => q.kind === "trap")!, loadGroundingQuestions().find((q) => q.kind === "covered")!];
    const result = (question: typeof trap, rung: string, misleading: boolean) => ({ question, rung, misleading }) as QuestionResult;
    const figures = groundingFigures([
      result(trap, "document", true),
      result(trap, "general", false),
      result(covered, "chunks", false),
      result(covered, "document", false),
      result(covered, "chunks", true),
      result(covered, "general", false),
    ]);
    expect(figures).to.deep.equal({ traps: 2, trapsGrounded: 1, covered: 4, coveredGrounded: 2, coveredOnDocument: 1 });
  });

  it("has a question set of at least 60 questions of every kind, each key fact present in its document", async function () {
    this.timeout(30_000);
    const questions = loadQuestions();
    expect(questions.length).to.be.at.least(60);
    const kinds = new Set(questions.map((q) => q.kind));
    expect([...kinds]).to.include.members(["fact", "table", "two-passage", "paraphrase", "no-answer", "decoy", "spanish"]);
    expect(questions.filter((q) => q.kind === "spanish").every((q) => q.lang === "es" && q.passages.every((p) => p.file.startsWith("es/")))).to.equal(true);
    const files = allCorpusFiles();
    expect(files.length).to.be.at.least(30);
    expect(new Set(files.map((f) => f.slice(f.lastIndexOf("."))))).to.include.members([".html", ".md", ".pdf"]);
    const format = (file: string): DocumentFormat => (file.endsWith(".pdf") ? "pdf" : file.endsWith(".md") ? "markdown" : "html");
    const texts = new Map<string, string>();
    for (const q of questions) {
      for (const p of q.passages) {
        if (!texts.has(p.file)) texts.set(p.file, (await extractDocument(readFileSync(join(CORPUS_DIR, p.file)), format(p.file))).fullText);
        expect(containsFact(texts.get(p.file)!, p.fact), `${q.id}: "${p.fact}" is not in ${p.file}`).to.equal(true);
      }
    }
  });
});
