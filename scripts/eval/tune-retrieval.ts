/**
 * `node --import tsx scripts/eval/tune-retrieval.ts`: retrieval-only sweeps for tuning. Ingests
 * the corpus once (through the upload API, at the chunk settings in the environment), then runs
 * each question's hybrid search under several fusion and floor settings directly, scoring
 * recall@5 and MRR exactly as `npm run eval` does. Much faster than a full run per setting; the
 * settings it favours are then confirmed by `npm run eval` (eval/results.md records both).
 */
import type { Config } from "../../lib/config";
import { hybridSearch } from "../../workers/tutor/retrieval/hybrid-search";
import { ingestedCorpus } from "./ingested-corpus";
import { sourceTexts } from "./organisation";
import { loadQuestions } from "./questions";
import { passageRanks, recallAt5, reciprocalRank } from "./scoring";

const VARIANTS: Array<[string, Partial<Config["retrieval"]>]> = [
  ["weighted 0.7", {}],
  ["weighted 0.6", { RETRIEVAL_VECTOR_WEIGHT: 0.6 }],
  ["weighted 0.5", { RETRIEVAL_VECTOR_WEIGHT: 0.5 }],
  ["rrf 60", { RETRIEVAL_FUSION: "rrf" }],
  ["floor 0.25", { RETRIEVAL_SIMILARITY_FLOOR: 0.25 }],
  ["coverage 0.34", { RETRIEVAL_KEYWORD_COVERAGE_FLOOR: 0.34 }],
  ["coverage 0.25", { RETRIEVAL_KEYWORD_COVERAGE_FLOOR: 0.25 }],
  ["coverage 0.34 + weighted 0.6", { RETRIEVAL_KEYWORD_COVERAGE_FLOOR: 0.34, RETRIEVAL_VECTOR_WEIGHT: 0.6 }],
  ["coverage 0.34 + rrf 60", { RETRIEVAL_KEYWORD_COVERAGE_FLOOR: 0.34, RETRIEVAL_FUSION: "rrf" }],
];

const corpus = await ingestedCorpus();
const { config, db, documentIds } = corpus;
const org = { orgId: corpus.orgId };
const reader = { id: corpus.readerId };
const answerable = loadQuestions().filter((q) => q.passages.length > 0);

process.stdout.write(`chunks ${config.ingestion.CHUNK_TOKENS}/${config.ingestion.CHUNK_OVERLAP_TOKENS} ${config.ingestion.CHUNK_STRATEGY}\n`);
const only = process.env.TUNE_ONLY?.split(",");
for (const [name, overrides] of VARIANTS.filter(([name]) => !only || only.includes(name))) {
  const deps = { ...corpus.deps, config: { ...config, retrieval: { ...config.retrieval, ...overrides } } };
  const rows: Array<{ lang: string; kind: string; recall: number; rr: number; id: string }> = [];
  for (const q of answerable) {
    const found = await hybridSearch(deps, { orgId: org.orgId, userId: reader.id, question: q.question });
    const judged = await sourceTexts(
      db,
      org.orgId,
      found.map((s, i) => ({ index: i + 1, sourceType: s.sourceType, sourceId: s.sourceId })),
    );
    const ranks = passageRanks(q, judged, documentIds);
    rows.push({ lang: q.lang, kind: q.kind, recall: recallAt5(ranks), rr: reciprocalRank(ranks), id: q.id });
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const english = rows.filter((r) => r.lang === "en");
  const spanish = rows.filter((r) => r.kind === "spanish");
  process.stdout.write(
    `${name.padEnd(28)} en R@5 ${(100 * mean(english.map((r) => r.recall))).toFixed(1)} MRR ${mean(english.map((r) => r.rr)).toFixed(3)} | es R@5 ${(100 * mean(spanish.map((r) => r.recall))).toFixed(1)} | misses ${english
      .filter((r) => r.recall < 1)
      .map((r) => r.id)
      .join(",")}\n`,
  );
}
await corpus.close();
process.exit(0);
