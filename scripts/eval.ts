/**
 * `npm run eval`: answer quality over a real corpus (eval/corpus/, eval/questions.json). Starts
 * the whole stack in this process the way the test suite does (redis-server, PGlite + pgvector,
 * BullMQ workers, Socket.IO), with the offline model (extractive answers, hashed embeddings)
 * unless EVAL_LLM_BASE_URL points at a real OpenAI-compatible server. Prints the table, writes
 * eval/results.md, and compares with eval/baseline.json (`--update-baseline` rewrites it).
 *
 *   EVAL_LLM_BASE_URL, EVAL_LLM_API_KEY, EVAL_LLM_MODEL   a real model for chat (and embeddings,
 *   EVAL_EMBEDDING_MODEL, EVAL_EMBEDDING_DIMENSIONS       unless these name another one)
 *   EVAL_ONLY=quick | <id,id,…>                           a subset of the questions (ids of eval/grounding.json too)
 *   EVAL_ONLY=grounding                                   only the demo organisation's grounding set (no corpus)
 *   EVAL_ONLY=languages | languages:<split>               only the language set (eval/languages.json), or one split of it
 *   EMBEDDING_BASE_URL, EMBEDDING_API_KEY, EMBEDDING_MODEL, EMBEDDING_DIMENSIONS
 *                                                         an OpenAI-compatible embedding server (a multilingual model)
 *                                                         instead of the offline model's hashed embeddings
 *   CHUNK_*, RETRIEVAL_*                                   as in lib/config.ts, to compare settings
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startInfrastructure, stopInfrastructure } from "../test/harness/infrastructure";
import { consoleTable, resultsPage, toBaseline, type Baseline } from "./eval/report";
import { evaluate } from "./eval/run";
import { allCorpusFiles, EVAL_DIR, loadQuestions } from "./eval/questions";
import { evalSettings } from "./eval/settings";
import { startEvalStack } from "./eval/ingested-corpus";
import { evaluateGrounding, groundingFigures, groundingLine, groundingSection, loadGroundingQuestions } from "./eval/grounding";
import { withTestTunables } from "../lib/test-tunables";
import { evaluateLanguages, LANGUAGE_SPLITS, loadLanguageQuestions } from "./eval/languages";
import { figuresByLanguage, languageGoalMisses, languageLines, languageSection } from "./eval/language-figures";

const BASELINE = join(EVAL_DIR, "baseline.json");
const RESULTS = join(EVAL_DIR, "results.md");

function selectQuestions() {
  const all = loadQuestions();
  const demo = loadGroundingQuestions();
  const languages = loadLanguageQuestions();
  const only = process.env.EVAL_ONLY;
  if (!only) return { corpus: all, demo, languages };
  if (only === "quick") return { corpus: all.filter((q) => q.quick), demo: [], languages: [] };
  if (only === "grounding") return { corpus: [], demo, languages: [] };
  if (only === "languages") return { corpus: [], demo: [], languages };
  if (only.startsWith("languages:")) return { corpus: [], demo: [], languages: languages.filter((q) => q.split === only.slice("languages:".length)) };
  const ids = new Set(only.split(","));
  return { corpus: all.filter((q) => ids.has(q.id)), demo: demo.filter((q) => ids.has(q.id)), languages: languages.filter((q) => ids.has(q.id)) };
}

const { corpus: questions, demo: demoQuestions, languages: languageQuestions } = selectQuestions();
const fullRun = !process.env.EVAL_ONLY;
// An embedding server of the caller's (a multilingual model), kept over the test stack's defaults.
const embeddingServer = Object.fromEntries(
  ["EMBEDDING_BASE_URL", "EMBEDDING_API_KEY", "EMBEDDING_MODEL", "EMBEDDING_DIMENSIONS", "EMBEDDING_PREFIXES"].flatMap((name) =>
    process.env[name] ? [[name, process.env[name]!]] : [],
  ),
);
const { llm } = await startInfrastructure();
if (embeddingServer.EMBEDDING_BASE_URL) Object.assign(process.env, embeddingServer);
// The harness's employees ask many questions a minute; the limits are covered by their own tests.
Object.assign(process.env, withTestTunables(process.env, { RATE_LIMIT_TUTOR_PER_MINUTE: 100000, RATE_LIMIT_UPLOADS_PER_MINUTE: 100000 }));
if (process.env.EVAL_LLM_BASE_URL) {
  process.env.LLM_BASE_URL = process.env.EVAL_LLM_BASE_URL;
  process.env.LLM_API_KEY = process.env.EVAL_LLM_API_KEY ?? "";
  process.env.LLM_MODEL = process.env.EVAL_LLM_MODEL ?? "gpt-4o-mini";
  if (process.env.EVAL_EMBEDDING_MODEL) process.env.EMBEDDING_MODEL = process.env.EVAL_EMBEDDING_MODEL;
  if (process.env.EVAL_EMBEDDING_DIMENSIONS) process.env.EMBEDDING_DIMENSIONS = process.env.EVAL_EMBEDDING_DIMENSIONS;
} else {
  // What a newcomer runs: the offline model's name and the default embedding settings.
  process.env.LLM_MODEL = "offline-extractive";
}
const { config, workers, server, db } = await startEvalStack();
const embeddingsUsed = evalSettings(config, Boolean(process.env.EVAL_LLM_BASE_URL)).embeddings as string;
process.stdout.write(`embeddings: ${embeddingsUsed}\n`);

// Every run ingests the whole corpus, so a subset meets the same distractors as the full set.
const {
  documents,
  results,
  ingestMs: ingestedMs,
  cost,
} = questions.length > 0
  ? await evaluate(db, server.url, questions, allCorpusFiles())
  : { documents: [], results: [], ingestMs: 0, cost: { cpuMsPerTurn: {} } };
// The demo organisation's set, on the material npm start seeds (eval/grounding.json).
const demoResults = demoQuestions.length > 0 ? await evaluateGrounding(db, server.url, demoQuestions) : [];
// The language set, on company material in six languages in an organisation of its own (eval/languages.json).
const languageResults = languageQuestions.length > 0 ? await evaluateLanguages(db, server.url, languageQuestions) : [];

await server.close();
await workers.close();
await llm.close();
await stopInfrastructure();

const date = new Date().toISOString().slice(0, 10);
const settings = {
  ...evalSettings(config, Boolean(process.env.EVAL_LLM_BASE_URL)),
  corpus: `${documents.length} documents (${documents.filter((d) => d.status !== "COMPLETED").length} not COMPLETED), ingested in ${Math.round(ingestedMs / 1000)} s`,
  questions: questions.length,
  "turn CPU": `${Object.entries(cost.cpuMsPerTurn)
    .map(([name, ms]) => `${name} ${ms} ms`)
    .join(", ")} per turn (questions asked one at a time; CPU time, unlike latency, barely moves with other load on the machine)`,
};
const previous = existsSync(BASELINE) ? (JSON.parse(readFileSync(BASELINE, "utf8")) as Baseline) : undefined;
if (results.length > 0) process.stdout.write(`\n${consoleTable(results)}\n\nturn CPU: ${JSON.stringify(cost.cpuMsPerTurn)} ms per turn\n`);
if (demoResults.length > 0) {
  process.stdout.write(`\n${groundingLine(groundingFigures(demoResults))}\n`);
  for (const r of demoResults)
    if ((r.question.kind === "trap") === (r.rung !== "general") || (r.question.kind === "covered" && r.misleading))
      process.stdout.write(`  ${r.question.id} → ${r.rung}: ${r.question.question} | ${r.sources.map((s) => s.document).join(", ") || "no sources"}\n`);
}
if (languageResults.length > 0) {
  const byLanguage = figuresByLanguage(languageResults);
  const misses = languageGoalMisses(byLanguage);
  process.stdout.write(`\nlanguages (${embeddingsUsed}):\n${languageLines(byLanguage)}\n  goal: ${misses.length === 0 ? "met" : misses.join("; ")}\n`);
  for (const r of languageResults)
    if (r.misleading || (r.question.passages.length > 0 && r.rung === "general") || r.refused)
      process.stdout.write(
        `  ${r.question.id} → ${r.rung}${r.misleading ? " misleading" : ""}: ${r.question.question} | ${r.sources.map((s) => s.document).join(", ") || "no sources"}\n`,
      );
}
if (fullRun) {
  const tuning = join(EVAL_DIR, "tuning.md");
  const splitOf = new Map(languageQuestions.map((q) => [q.id, q.split]));
  const grounding = `${groundingSection(demoResults, previous?.grounding)}\n${languageSection({
    embeddings: embeddingsUsed,
    all: languageResults,
    splits: LANGUAGE_SPLITS.map((split) => languageResults.filter((r) => splitOf.get(r.question.id) === split)),
  })}`;
  writeFileSync(
    RESULTS,
    resultsPage({ date, settings, documents, results, previous, grounding, notes: existsSync(tuning) ? readFileSync(tuning, "utf8") : undefined }),
  );
  process.stdout.write(`\nWrote eval/results.md\n`);
  if (process.argv.includes("--update-baseline") || !previous) {
    writeFileSync(
      BASELINE,
      `${JSON.stringify(toBaseline(results, settings, date, groundingFigures(demoResults), figuresByLanguage(languageResults)), null, 2)}\n`,
    );
    process.stdout.write(`Wrote eval/baseline.json\n`);
  }
}
process.exit(0);
