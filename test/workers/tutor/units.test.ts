/**
 * Pure pieces of the tutor, no stack: intent parsing and heuristics, PageIndex module
 * selection, citations, hybrid-search de-duplication, conversation memory and budgets.
 */
import { expect } from "chai";
import type { ChunkHit } from "../../../db/queries/knowledge-search";
import type { ModuleOutline } from "../../../db/queries/learner";
import { countTokens } from "../../../workers/llm/tokens";
import { citedIndices, extractCitations } from "../../../workers/tutor/citations";
import { rawWindow, summaryDue, toTurns, type Turn } from "../../../workers/turns/history";
import { heuristicIntent, parseIntent } from "../../../workers/tutor/intent";
import { combine, jaccard, keywordCoverage, selectHits, type ScoredHit } from "../../../workers/tutor/retrieval/hybrid-search";
import { contentWords } from "../../../workers/tutor/language";
import { TRUNCATION_MARKER, fitToBudget } from "../../../workers/tutor/retrieval/ladder";
import { parseModuleSelection } from "../../../workers/tutor/retrieval/page-index";
import type { RetrievedSource } from "../../../workers/tutor/retrieval/types";

describe("tutor units", () => {
  describe("parseIntent", () => {
    it("accepts each of the five labels, whatever the case, whitespace or trailing punctuation", () => {
      expect(parseIntent("in_course")).to.equal("in_course");
      expect(parseIntent("  Cross_Course.\n")).to.equal("cross_course");
      expect(parseIntent("PROGRESS")).to.equal("progress");
      expect(parseIntent("chitchat!")).to.equal("chitchat");
      expect(parseIntent("`off_topic`")).to.equal("off_topic");
      expect(parseIntent("**in_course**")).to.equal("in_course");
    });

    it("finds the label when the model wraps it in words or writes it with a hyphen or space", () => {
      expect(parseIntent("Label: in_course")).to.equal("in_course");
      expect(parseIntent("The intent is progress.")).to.equal("progress");
      expect(parseIntent("off-topic")).to.equal("off_topic");
      expect(parseIntent("In course")).to.equal("in_course");
    });

    it("maps anything that is not one of the five labels to cross_course", () => {
      expect(parseIntent("")).to.equal("cross_course");
      expect(parseIntent("banana")).to.equal("cross_course");
      expect(parseIntent("course")).to.equal("cross_course");
      expect(parseIntent("I cannot tell")).to.equal("cross_course");
    });
  });

  describe("heuristicIntent", () => {
    it("settles greetings and thanks in Spanish and English as chitchat", () => {
      for (const message of [
        "hola",
        "¡Hola!",
        "Buenos días",
        "buenas tardes",
        "Muchas gracias",
        "Hola, gracias",
        "hi",
        "Hello!",
        "Thank you",
        "thanks a lot",
        "Good morning.",
      ]) {
        expect(heuristicIntent(message), message).to.equal("chitchat");
      }
    });

    it("settles progress questions in Spanish and English", () => {
      for (const message of [
        "¿Cómo voy?",
        "¿Cuál es mi progreso?",
        "¿Cuáles son mis fechas límite?",
        "¿Qué debería repasar?",
        "What is my progress and my deadlines?",
        "How am I doing?",
        "Show me my grades",
        "What are my courses?",
      ]) {
        expect(heuristicIntent(message), message).to.equal("progress");
      }
    });

    it("leaves real questions to the model, including ones that merely start with a greeting", () => {
      for (const message of [
        "How many days do I have to return an item for a refund?",
        "Hola, ¿cuántos kg puedo levantar solo?",
        "Hi, what is ZEBRA-7?",
        "¿Qué necesito para conducir una carretilla elevadora?",
        "okay so what about gift cards",
      ]) {
        expect(heuristicIntent(message), message).to.equal(null);
      }
    });

    it("does not mistake a policy question about a deadline for a question about the employee's own progress", () => {
      expect(heuristicIntent("What is the deadline to return a faulty kettle?")).to.equal(null);
      expect(heuristicIntent("¿Cuál es la fecha límite para devolver un producto?")).to.equal(null);
      // Their own deadlines still are.
      expect(heuristicIntent("When are my deadlines?")).to.equal("progress");
      expect(heuristicIntent("¿Cuándo son mis fechas límite?")).to.equal("progress");
    });
  });

  describe("parseModuleSelection", () => {
    const modules: ModuleOutline[] = [1, 2, 3].map((position) => ({ id: `m${position}`, title: `Module ${position}`, summary: null, position }));
    const ids = (picked: ModuleOutline[]) => picked.map((m) => m.id);

    it("reads single numbers, lists and prose", () => {
      expect(ids(parseModuleSelection("2", modules))).to.deep.equal(["m2"]);
      expect(ids(parseModuleSelection("1, 3", modules))).to.deep.equal(["m1", "m3"]);
      expect(ids(parseModuleSelection("Modules 3 and 2", modules))).to.deep.equal(["m2", "m3"]);
      expect(ids(parseModuleSelection("Module 1.", modules))).to.deep.equal(["m1"]);
    });

    it('answers "all" (or todos) with every module', () => {
      expect(ids(parseModuleSelection("all", modules))).to.deep.equal(["m1", "m2", "m3"]);
      expect(ids(parseModuleSelection("Todos", modules))).to.deep.equal(["m1", "m2", "m3"]);
    });

    it("falls back to every module when the reply names no module that exists", () => {
      expect(ids(parseModuleSelection("", modules))).to.deep.equal(["m1", "m2", "m3"]);
      expect(ids(parseModuleSelection("7", modules))).to.deep.equal(["m1", "m2", "m3"]);
      expect(ids(parseModuleSelection("none of them", modules))).to.deep.equal(["m1", "m2", "m3"]);
      expect(ids(parseModuleSelection("2, 9", modules))).to.deep.equal(["m2"]);
    });
  });

  describe("citations", () => {
    it("citedIndices reads [n], lists, adjacent markers and ranges in first-seen order, once each", () => {
      expect(citedIndices("Thirty days [1].")).to.deep.equal([1]);
      expect(citedIndices("See [3] and [1, 2]. Again [3].")).to.deep.equal([3, 1, 2]);
      expect(citedIndices("Both [1][3].")).to.deep.equal([1, 3]);
      expect(citedIndices("Range [2-4] and [6–7].")).to.deep.equal([2, 3, 4, 6, 7]);
      expect(citedIndices("No markers here, not [a] nor [1.5].")).to.deep.equal([]);
    });

    it("citedIndices caps an absurd range instead of expanding it", () => {
      expect(citedIndices("[1-100000]")).to.have.length(50);
    });

    const sources: RetrievedSource[] = [
      {
        index: 1,
        document: "Returns Policy Manual",
        section: "1. Refund Window",
        page: 1,
        sourceType: "document_chunk",
        sourceId: "c1",
        content: "thirty days",
      },
      { index: 2, document: "Returns Essentials", section: "M1 > L1", page: null, sourceType: "lesson", sourceId: "l1", content: "count from the day after" },
    ];

    it("extractCitations keeps only sources that were given, ordered by index, without their text", () => {
      const citations = extractCitations("Refunds take 30 days [2][9]. See also [1] and [0], [2].", sources);
      expect(citations.map((c) => c.index)).to.deep.equal([1, 2]);
      expect(citations[0]).to.deep.equal({
        index: 1,
        document: "Returns Policy Manual",
        section: "1. Refund Window",
        page: 1,
        sourceType: "document_chunk",
        sourceId: "c1",
      });
      expect(citations[1]).to.not.have.property("content");
    });

    it("extractCitations returns nothing for an answer with only invented markers, or no sources", () => {
      expect(extractCitations("As [9] says.", sources)).to.deep.equal([]);
      expect(extractCitations("As [1] says.", [])).to.deep.equal([]);
    });
  });

  describe("hybrid search selection", () => {
    const hit = (id: string, documentTitle: string, position: number, content: string, score: number): ScoredHit => ({
      id,
      document_id: `doc:${documentTitle}`,
      document_title: documentTitle,
      content,
      position,
      metadata: {},
      similarity: 0,
      text_rank: 0,
      score,
    });

    it("jaccard compares word sets, case-insensitively", () => {
      expect(jaccard("a b c", "A B C")).to.equal(1);
      expect(jaccard("a b c", "d e f")).to.equal(0);
      expect(jaccard("a b c", "a b d")).to.equal(0.5);
      expect(jaccard("", "a")).to.equal(0);
      expect(jaccard("a a a b", "a b")).to.equal(1);
    });

    it("selectHits drops near-duplicates of better hits and keeps same-document neighbours (the answer often sits next door)", () => {
      const kept = selectHits([
        hit("best", "Playbook", 2, "escalate the ticket with code zebra seven today", 0.9),
        hit("dup", "Manual", 7, "escalate the ticket with code zebra seven now", 0.8),
        hit("neighbour", "Playbook", 3, "response time targets for chat and email", 0.7),
        hit("other-doc", "Manual", 3, "card refunds take five business days", 0.6),
        hit("far", "Playbook", 5, "close the ticket with the right reason code", 0.5),
      ]);
      expect(kept.map((h) => h.id)).to.deep.equal(["best", "neighbour", "other-doc", "far"]);
    });

    it("selectHits keeps at most five, best first, so source [1] is the strongest evidence", () => {
      const hits = Array.from({ length: 9 }, (_, i) =>
        hit(`h${i}`, i % 2 ? "B doc" : "A doc", i * 10, `unique words number ${i} ${"x".repeat(i + 1)} alpha${i} beta${i} gamma${i}`, 1 - i / 10),
      );
      const kept = selectHits(hits);
      expect(kept.map((h) => h.id)).to.deep.equal(["h0", "h1", "h2", "h3", "h4"]);
    });

    it("combine can fuse by reciprocal rank instead, ignoring the scores' scales", () => {
      const base = hit("x", "Doc", 1, "text", 0);
      const vector: ChunkHit[] = [
        { ...base, id: "v1", similarity: 0.9 },
        { ...base, id: "both", similarity: 0.2 },
      ];
      const text: ChunkHit[] = [
        { ...base, id: "both", text_rank: 0.1 },
        { ...base, id: "t2", text_rank: 9 },
      ];
      const scored = combine(vector, text, { method: "rrf", vectorWeight: 0.7, rrfK: 60 });
      expect(scored.map((h) => h.id)).to.deep.equal(["both", "v1", "t2"]);
      expect(scored[0]!.score).to.be.closeTo(1 / 62 + 1 / 61, 1e-12);
    });

    it("keywordCoverage counts the share of the question's content words a chunk contains", () => {
      const escalation = "Tag the ticket with the ticket escalation code ZEBRA-7 so it is routed to the Tier 2 resolution team.";
      expect(keywordCoverage(contentWords("What is ticket escalation code ZEBRA-7 for?"), escalation)).to.equal(1);
      expect(keywordCoverage(contentWords("What is ZEBRA-7?"), escalation)).to.equal(1);
      expect(keywordCoverage(contentWords("Who won the 1998 football world cup?"), "Never argue about who is at fault.")).to.be.closeTo(1 / 6, 1e-9);
      expect(keywordCoverage(contentWords("¿Cuál es el código?"), "El código de escalado")).to.equal(1);
      expect(keywordCoverage([], escalation)).to.equal(0);
    });

    it("combine adds the weighted vector and keyword scores of a chunk found both ways", () => {
      const base = hit("x", "Doc", 1, "text", 0);
      const vector: ChunkHit[] = [{ ...base, similarity: 0.5 }];
      const text: ChunkHit[] = [
        { ...base, text_rank: 0.2 },
        { ...base, id: "y", text_rank: 0.4 },
      ];
      const scored = combine(vector, text);
      expect(scored.map((h) => h.id)).to.deep.equal(["x", "y"]);
      expect(scored[0]!.score).to.be.closeTo(0.6 * 0.5 + 0.4 * 0.5, 1e-9);
      expect(scored[1]!.score).to.be.closeTo(0.4, 1e-9);
    });
  });

  describe("conversation memory", () => {
    const turns = (n: number): Turn[] => Array.from({ length: n }, (_, i) => ({ user: `q${i + 1}`, assistant: `a${i + 1}` }));

    it("summaryDue waits until a turn has aged out of the raw window, then refreshes every six", () => {
      expect(summaryDue(0, 0, false)).to.equal(null);
      expect(summaryDue(6, 0, false)).to.equal(null);
      expect(summaryDue(7, 0, false)).to.equal(1);
      expect(summaryDue(8, 0, false)).to.equal(2);
      expect(summaryDue(8, 1, true)).to.equal(null);
      expect(summaryDue(12, 1, true)).to.equal(null);
      expect(summaryDue(13, 1, true)).to.equal(7);
    });

    it("rawWindow shows everything the summary does not cover, but never fewer than the last six turns", () => {
      expect(rawWindow(turns(10), 0).map((t) => t.user)).to.deep.equal(turns(10).map((t) => t.user));
      expect(rawWindow(turns(10), 3).map((t) => t.user)).to.deep.equal(["q4", "q5", "q6", "q7", "q8", "q9", "q10"]);
      expect(rawWindow(turns(10), 9).map((t) => t.user)).to.deep.equal(["q5", "q6", "q7", "q8", "q9", "q10"]);
      expect(rawWindow(turns(3), 5).map((t) => t.user)).to.deep.equal(["q1", "q2", "q3"]);
    });

    it("toTurns pairs messages by turn, oldest first, and drops answers without a question", () => {
      const result = toTurns([
        { turn_id: "t1", role: "user", content: "first?" },
        { turn_id: "t1", role: "assistant", content: "one" },
        { turn_id: "t2", role: "assistant", content: "orphan" },
        { turn_id: "t3", role: "user", content: "third?" },
      ]);
      expect(result).to.deep.equal([
        { user: "first?", assistant: "one" },
        { user: "third?", assistant: null },
      ]);
    });
  });

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
});

describe("searchTerms", () => {
  it("keeps accented words as written and accent-free, without stop words", async () => {
    const { searchTerms } = await import("../../../workers/tutor/language");
    const terms = searchTerms("¿Cuál es el peso máximo de carga manual?");
    expect(terms).to.include.members(["maximo", "máximo", "peso", "carga", "manual"]);
    expect(terms).to.not.include("el");
  });
});
