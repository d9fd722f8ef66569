/**
 * `node --import tsx scripts/eval/tune-grounding.ts`: the sweep behind RETRIEVAL_GROUNDING_COVERAGE
 * and RETRIEVAL_GROUNDING_SIMILARITY (eval/tuning.md). Ingests the corpus once, collects every
 * question's merged hits before they are judged, then applies each pair of floors: recall@5 of the
 * answerable questions against misleading grounding (a no-answer or decoy question that keeps a
 * hit, an answerable one that keeps hits none of which holds its passage). `--explain` prints,
 * per question, the weighted terms and the best coverage and similarity among its hits.
 */
import { candidateHits, grounds, selectHits, type ScoredHit } from "../../workers/tutor/retrieval/hybrid-search";
import type { Relevance } from "../../workers/tutor/retrieval/relevance";
import { ingestedCorpus } from "./ingested-corpus";
import { loadQuestions, type EvalQuestion } from "./questions";
import { isMisleading, passageRanks, recallAt5 } from "./scoring";

const COVERAGE_FLOORS = [0.45, 0.5, 0.55, 0.6, 0.65, 0.7];
const SIMILARITY_FLOORS = [0.4, 0.45, 0.5, 0.55, 0.6];
const BLENDS = [0.25, 0.5, 0.75];

const corpus = await ingestedCorpus();
const questions = loadQuestions();
const collected: Array<{ question: EvalQuestion; hits: ScoredHit[]; relevance: Relevance }> = [];
for (const question of questions) {
  const { hits, relevance } = await candidateHits(corpus.deps, { orgId: corpus.orgId, userId: corpus.readerId, question: question.question });
  collected.push({ question, hits, relevance });
}

const judgedRanks = (question: EvalQuestion, kept: ScoredHit[]) =>
  passageRanks(
    question,
    kept.map((hit, i) => ({ index: i + 1, documentId: hit.document_id, content: hit.content })),
    corpus.documentIds,
  );

if (process.argv.includes("--explain")) {
  for (const { question, hits, relevance } of collected) {
    const terms = relevance.terms.map((term, i) => `${term.stem}:${relevance.weights[i]!.toFixed(2)}`).join(" ");
    const best = (pick: (hit: ScoredHit) => number) => Math.max(0, ...hits.map(pick)).toFixed(2);
    const coverage = (hit: ScoredHit) => relevance.coverage(`${hit.metadata.heading ?? ""}\n${hit.content}`);
    const holding = hits.filter((hit) => judgedRanks(question, [hit]).some((rank) => rank > 0));
    const holds = holding.length
      ? ` | passage hit: cov ${Math.max(...holding.map(coverage)).toFixed(2)} sim ${Math.max(...holding.map((h) => h.similarity)).toFixed(2)}`
      : "";
    process.stdout.write(`${question.id.padEnd(12)} best cov ${best(coverage)} sim ${best((h) => h.similarity)}${holds} | ${terms}\n`);
  }
}

process.stdout.write(`${"blend".padEnd(6)} ${"coverage".padEnd(9)} ${"similarity".padEnd(11)} en R@5  es R@5  misleading: no-answer+decoy / answerable\n`);
for (const blend of BLENDS)
  for (const coverage of COVERAGE_FLOORS) {
    for (const similarity of SIMILARITY_FLOORS) {
      const rows = collected.map(({ question, hits, relevance }) => {
        const kept = selectHits(hits.filter((hit) => grounds(hit, relevance, { coverage, similarity, blend })));
        const ranks = judgedRanks(question, kept);
        return { question, recall: recallAt5(ranks), misleading: isMisleading(kept.length > 0 ? "chunks" : "general", ranks) };
      });
      const mean = (xs: number[]) => (xs.length ? (100 * xs.reduce((a, b) => a + b, 0)) / xs.length : Number.NaN);
      const en = rows.filter((r) => r.question.lang === "en" && r.question.passages.length > 0);
      const es = rows.filter((r) => r.question.kind === "spanish");
      const unanswerable = rows.filter((r) => r.question.passages.length === 0 && r.misleading);
      const answerable = rows.filter((r) => r.question.passages.length > 0 && r.misleading);
      process.stdout.write(
        `${String(blend).padEnd(6)} ${String(coverage).padEnd(9)} ${String(similarity).padEnd(11)} ${mean(en.map((r) => r.recall))
          .toFixed(1)
          .padStart(5)}  ${mean(es.map((r) => r.recall))
          .toFixed(1)
          .padStart(5)}  ${unanswerable.length} / ${answerable.length}  ${unanswerable.map((r) => r.question.id).join(",")} | en misses ${en
          .filter((r) => r.recall < 1)
          .map((r) => r.question.id)
          .join(",")}\n`,
      );
    }
  }
await corpus.close();
process.exit(0);
