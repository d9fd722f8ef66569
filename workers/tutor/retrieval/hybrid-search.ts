/**
 * Hybrid search over the chunks the asking user may read (db/queries/access.ts): pgvector cosine (with a similarity floor) and `simple`
 * full-text, merged by a weighted sum (0.6 / 0.4 by default) or reciprocal rank fusion
 * (RETRIEVAL_* settings; eval/results.md has the measurements behind the defaults). Over-retrieves
 * 20, keeps only hits that answer the question (`grounds`, relevance.ts), drops near-duplicates
 * (word Jaccard > 0.7), keeps the best 5, best first. Twenty rather than ten: once hits that only
 * share common words are judged out, the answer is often further down (eval/tuning.md). Neighbouring
 * chunks of one document are both kept when both score: dropping the second cost 6 points of
 * recall@5 on the evaluation corpus, where an answer often sits next to the best-matching chunk.
 * A third search, by the judge's own terms, lets an employee's wording reach a passage that says
 * the same in other words ("item" for "product"); its hits only fill places behind the others.
 */
import { keywordSearch, vectorSearch, type ChunkHit } from "../../../db/queries/knowledge-search";
import type { WorkerDeps } from "../../deps";
import type { Language } from "../../../lib/language";
import { contentWords, searchTerms } from "../language";
import { relevanceFor, type Relevance } from "./relevance";
import type { RetrievedSource } from "./types";

export const OVER_RETRIEVE = 20;
export const KEEP = 5;

/** How the two hit lists become one ranking (RETRIEVAL_FUSION, RETRIEVAL_VECTOR_WEIGHT, RETRIEVAL_RRF_K). */
export interface Fusion {
  method: "weighted" | "rrf";
  vectorWeight: number;
  rrfK: number;
}

export const DEFAULT_FUSION: Fusion = { method: "weighted", vectorWeight: 0.6, rrfK: 60 };

export interface ScoredHit extends ChunkHit {
  score: number;
}

export async function hybridSearch(
  deps: WorkerDeps,
  asked: { orgId: string; userId: string; question: string; language?: Language },
): Promise<Omit<RetrievedSource, "index">[]> {
  const { hits, relevance } = await candidateHits(deps, asked);
  const floors = { coverage: deps.config.retrieval.RETRIEVAL_GROUNDING_COVERAGE, similarity: deps.config.retrieval.RETRIEVAL_GROUNDING_SIMILARITY };
  return selectHits(hits.filter((hit) => grounds(hit, relevance, floors))).map(toSource);
}

/**
 * Both searches merged and ranked, before any is judged to answer the question, with the judge
 * (relevance.ts) that decides it; scripts/eval/tune-grounding.ts sweeps the floors over these.
 */
export async function candidateHits(
  deps: WorkerDeps,
  { orgId, userId, question, language }: { orgId: string; userId: string; question: string; language?: Language },
): Promise<{ hits: ScoredHit[]; relevance: Relevance }> {
  const { config } = deps;
  const words = contentWords(question, language);
  // The judge's terms (stems, word families) widen the keyword search: looked up with the embedding, before the searches.
  const [[embedding], relevance] = await Promise.all([deps.llm.embed([question], "query", { orgId, userId }), relevanceFor(deps, orgId, question, language)]);
  const reader = { orgId, userId };
  const [vectorHits, textHits, widenedHits] = await Promise.all([
    deps.reads.read((db) =>
      vectorSearch(db, {
        reader,
        embedding: embedding!,
        limit: OVER_RETRIEVE,
        minSimilarity: config.retrieval.RETRIEVAL_SIMILARITY_FLOOR,
        exactUpTo: config.retrieval.RETRIEVAL_EXACT_MAX_CHUNKS,
        cache: deps.searchCaches.vectorSearch,
      }),
    ),
    deps.reads.read((db) => keywordSearch(db, { reader, words: searchTerms(question, language), limit: OVER_RETRIEVE })),
    deps.reads.read((db) => keywordSearch(db, { reader, words: [], queries: relevance.terms.map((term) => term.query), limit: OVER_RETRIEVE })),
  ]);
  const byVector = new Set(vectorHits.map((hit) => hit.id));
  const byWords = new Set(textHits.map((hit) => hit.id));
  // A text hit the words as written do not carry is still a candidate when it covers the question
  // as the judge reads it (stems, word families, clauses), naming nothing the organisation's
  // material never mentions (`coversAll`): an employee's own wording often shares few words as written.
  const judged = (hit: ChunkHit) => relevance.coversAll(`${hit.metadata.heading ?? ""}\n${hit.content}`, config.retrieval.RETRIEVAL_GROUNDING_COVERAGE);
  const relevantText = textHits.filter(
    (hit) => byVector.has(hit.id) || keywordCoverage(words, hit.content) >= config.retrieval.RETRIEVAL_KEYWORD_COVERAGE_FLOOR || judged(hit),
  );
  // The judge's own search finds passages that share the question's terms only in other words
  // ("item" for "product"). They join behind the others (no text rank): they fill places, and
  // never reorder what both searches agreed on.
  const widened = widenedHits.filter((hit) => !byVector.has(hit.id) && !byWords.has(hit.id) && judged(hit)).map((hit) => ({ ...hit, text_rank: 0 }));
  const fusion: Fusion = {
    method: config.retrieval.RETRIEVAL_FUSION,
    vectorWeight: config.retrieval.RETRIEVAL_VECTOR_WEIGHT,
    rrfK: config.retrieval.RETRIEVAL_RRF_K,
  };
  return { hits: combine(vectorHits, [...relevantText, ...widened], fusion), relevance };
}

/**
 * Whether a hit answers the question rather than sharing a word with it: it covers enough of
 * the question's rarity-weighted terms (its text and section heading; the document title is
 * not evidence, every chunk of the document carries it) or it is semantically close enough.
 */
export function grounds(hit: ChunkHit, relevance: Relevance, floors: GroundingFloors): boolean {
  if (hit.similarity >= floors.similarity) return true;
  const blend = floors.blend ?? SIMILARITY_BLEND;
  return relevance.coverage(`${hit.metadata.heading ?? ""}\n${hit.content}`) + blend * hit.similarity >= floors.coverage;
}

export interface GroundingFloors {
  coverage: number;
  similarity: number;
  /** Share of the cosine similarity added to the coverage (SIMILARITY_BLEND unless a sweep sets it). */
  blend?: number;
}

/**
 * How much a hit's cosine similarity adds to its coverage: a passage both searches found with
 * part of the terms is stronger evidence than a keyword match alone on the same part (0.5 kept
 * recall@5 at 94.4 with no decoy grounded; 0 and 0.25 either grounded a decoy or lost recall:
 * eval/tuning.md).
 */
export const SIMILARITY_BLEND = 0.5;

/** Share of the question's distinct content words (as keyword search uses them) that occur in `content`. */
export function keywordCoverage(questionWords: string[], content: string): number {
  const terms = new Set(questionWords.filter((word) => word.length > 1));
  if (terms.size === 0) return 0;
  const present = new Set(contentWords(content));
  let shared = 0;
  for (const term of terms) if (present.has(term)) shared++;
  return shared / terms.size;
}

/**
 * Merges both hit lists into one score per chunk. Weighted: w × cosine + (1 − w) × (rank / best
 * rank). RRF: Σ 1 / (k + position) over the lists that found the chunk, which ignores the two
 * scores' scales altogether.
 */
export function combine(vectorHits: ChunkHit[], textHits: ChunkHit[], fusion: Fusion = DEFAULT_FUSION): ScoredHit[] {
  const bestRank = Math.max(0, ...textHits.map((hit) => hit.text_rank)) || 1;
  const vectorScore = (hit: ChunkHit, position: number) => (fusion.method === "rrf" ? 1 / (fusion.rrfK + position + 1) : fusion.vectorWeight * hit.similarity);
  const textScore = (hit: ChunkHit, position: number) =>
    fusion.method === "rrf" ? 1 / (fusion.rrfK + position + 1) : (1 - fusion.vectorWeight) * (hit.text_rank / bestRank);
  const merged = new Map<string, ScoredHit>();
  vectorHits.forEach((hit, position) => merged.set(hit.id, { ...hit, score: vectorScore(hit, position) }));
  textHits.forEach((hit, position) => {
    const existing = merged.get(hit.id);
    if (existing) existing.score += textScore(hit, position);
    else merged.set(hit.id, { ...hit, score: textScore(hit, position) });
  });
  return [...merged.values()].sort((a, b) => b.score - a.score).slice(0, OVER_RETRIEVE);
}

export function jaccard(a: string, b: string): number {
  const left = new Set(a.toLowerCase().split(/\s+/).filter(Boolean));
  const right = new Set(b.toLowerCase().split(/\s+/).filter(Boolean));
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * Best-first de-duplication, keeping the top `KEEP` best first: source [1] is the strongest
 * evidence, which is what a reader (and a model) looks at first.
 */
export function selectHits(hits: ScoredHit[]): ScoredHit[] {
  const kept: ScoredHit[] = [];
  for (const hit of hits) {
    const duplicate = kept.some((other) => jaccard(other.content, hit.content) > 0.7);
    if (!duplicate) kept.push(hit);
    if (kept.length === KEEP) break;
  }
  return kept;
}

export function toSource(hit: ChunkHit): Omit<RetrievedSource, "index"> {
  return {
    document: hit.document_title,
    section: hit.metadata.heading ?? null,
    page: hit.metadata.page_start ?? null,
    sourceType: "document_chunk",
    sourceId: hit.id,
    content: hit.content,
  };
}
