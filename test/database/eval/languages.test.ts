/**
 * The language set's goal (eval/languages.json over eval/company/), held by the grounding the
 * tutor's chunk rung decides: the material indexed as ingestion does (hashed embeddings, the
 * configured chunking), each question searched by the employee whose profile language is the
 * question's, in the language the turn would be read in (detectLanguage, as turn-context.ts
 * does). No misleading grounding, on the whole set and on every split; the goal (no language
 * more than GOAL_POINTS below English's recall) on the tuning split, where it is met; and each
 * language's recall on the whole set at least the floor last measured (RECALL_FLOORS), so a
 * change that loses a question in any language shows here. `npm run eval` asks the same set through
 * the chat API and reports refusals too (eval/results.md). LANGUAGES_EXPLAIN=tuning prints each
 * tuning question's terms and best coverage, the tool the judge was improved with.
 */
import { expect } from "chai";
import { detectLanguage } from "../../../lib/language-detection";
import { CATALOG_LANGUAGES } from "../../../lib/messages";
import { hybridSearch } from "../../../workers/tutor/retrieval/hybrid-search";
import { relevanceFor } from "../../../workers/tutor/retrieval/relevance";
import { figuresByLanguage, type JudgedTurn, languageGoalMisses, languageLines } from "../../../scripts/eval/language-figures";
import { asEvalQuestion, COMPANY_DIR, companyFiles, LANGUAGE_SPLITS, loadLanguageQuestions, type LanguageQuestion } from "../../../scripts/eval/languages";
import { sourceTexts } from "../../../scripts/eval/organisation";
import { isMisleading, passageRanks } from "../../../scripts/eval/scoring";
import { hashedEmbedder, indexMaterial } from "../../support/company-material";
import { databaseSuite } from "../../support/database";

/** Recall on the whole set, in percent, as measured with the offline model's hashed embeddings (eval/results.md): regression floors, not the goal. */
const RECALL_FLOORS: Record<string, number> = { en: 71.4, es: 40, fr: 76.9, de: 53.8, pt: 61.5, it: 53.8 };

describe("eval: grounding in every language (company material, hashed embeddings)", function () {
  const lane = databaseSuite(this, { timeoutMs: 60_000 });
  const questions = loadLanguageQuestions();
  const turns = new Map<string, JudgedTurn>();
  const split = (name: LanguageQuestion["split"]) => questions.filter((q) => q.split === name).map((q) => turns.get(q.id)!);

  before(async function () {
    this.timeout(60_000);
    const orgId = (await lane.build.buildOrg({ name: "Aurelia Foods" })).id;
    const documentIds = await indexMaterial(lane, orgId, COMPANY_DIR, companyFiles());
    const employees = new Map<string, string>();
    for (const language of CATALOG_LANGUAGES) employees.set(language, (await lane.build.buildPerson(orgId, { locale: language })).id);
    const deps = lane.workerDeps({ llm: hashedEmbedder(lane.config.embedding.EMBEDDING_DIMENSIONS) });
    const explain = process.env.LANGUAGES_EXPLAIN;
    for (const q of questions) {
      const question = asEvalQuestion(q);
      const language = detectLanguage(q.question, q.lang);
      const found = await hybridSearch(deps, { orgId, userId: employees.get(q.lang)!, question: q.question, language });
      const judged = await sourceTexts(
        lane.db,
        orgId,
        found.map((source, i) => ({ index: i + 1, sourceType: source.sourceType, sourceId: source.sourceId })),
      );
      const ranks = passageRanks(question, judged, documentIds);
      const rung = found.length > 0 ? "chunks" : "general";
      turns.set(q.id, { question, rung, misleading: isMisleading(rung, ranks), refused: false, sources: found.map((s) => ({ document: s.document })) });
      if (explain && q.split === explain) {
        const relevance = await relevanceFor(deps, orgId, q.question, language);
        const terms = relevance.terms.map((t, i) => `${t.stem}${t.everyday ? "·" : ""}:${relevance.weights[i]!.toFixed(2)}`).join(" ");
        process.stdout.write(
          `${q.id} [${language}] ${rung}${turns.get(q.id)!.misleading ? " MISLEADING" : ""} | ${terms} | ${found.map((s) => s.document).join("; ")}\n`,
        );
      }
    }
    if (explain) process.stdout.write(`${languageLines(figuresByLanguage(split(explain as LanguageQuestion["split"])))}\n`);
  });

  it("grounds nothing misleadingly, on the whole set and on every split", () => {
    const byLanguage = figuresByLanguage([...turns.values()]);
    expect(Object.keys(byLanguage)).to.deep.equal([...CATALOG_LANGUAGES]);
    for (const name of LANGUAGE_SPLITS)
      expect(
        split(name)
          .filter((turn) => turn.misleading)
          .map((turn) => turn.question.id),
        name,
      ).to.deep.equal([]);
  });

  it("holds the goal on the tuning split: no language more than 5 points below English", () => {
    const byLanguage = figuresByLanguage(split("tuning"));
    expect(languageGoalMisses(byLanguage), languageLines(byLanguage)).to.deep.equal([]);
  });

  it("keeps every language's recall on the whole set at or above its measured floor", () => {
    const byLanguage = figuresByLanguage([...turns.values()]);
    const below = Object.entries(RECALL_FLOORS).filter(([language, floor]) => (byLanguage[language]?.recall ?? 0) < floor);
    expect(below, languageLines(byLanguage)).to.deep.equal([]);
  });

  // Not met with hashed embeddings: English now grounds more of its questions than Spanish, German,
  // Portuguese and Italian do, and the second held-out split's new wordings ground in few languages
  // (eval/results.md, "Grounding in every language"). Kept here, pending, until it is.
  it("holds the goal on the whole set and on each held-out split (pending: not met with hashed embeddings)");
});
