/**
 * Hybrid search over the chunks the asking user may read (db/queries/access.ts): pgvector cosine (with a similarity floor) and `simple`
 * full-text, combined 0.7 / 0.3. Over-retrieves 10, drops near-duplicates (word Jaccard > 0.7)
 * and neighbours of an already-kept chunk of the same document, keeps 5 ordered by position.
 */
import { keywordSearch, vectorSearch, type ChunkHit } from "../../../db/queries/knowledge-search";
import type { WorkerDeps } from "../../deps";
import { contentWords, searchTerms } from "../language";
import type { RetrievedSource } from "./types";

export const SIMILARITY_FLOOR = 0.3;
const OVER_RETRIEVE = 10;
const KEEP = 5;

export interface ScoredHit extends ChunkHit {
  score: number;
}

/**
 * The keyword side's floor: a chunk only the keyword search found must contain at least this
 * share of the question's content words. One shared word ("who" in "Who won the 1998 world
 * cup?") is not evidence, and letting it through would keep an unrelated question off the
 * general rung; a rare token the question is about (ZEBRA-7) easily clears it.
 */
export const KEYWORD_COVERAGE_FLOOR = 0.5;

export async function hybridSearch(deps: WorkerDeps, { orgId, userId, question }: { orgId: string; userId: string; question: string }): Promise<Omit<RetrievedSource, "index">[]> {
  const [embedding] = await deps.llm.embed([question], "query", { orgId, userId });
  const words = contentWords(question);
  const [vectorHits, textHits] = await Promise.all([
    vectorSearch(deps.db, { reader: { orgId, userId }, embedding: embedding!, limit: OVER_RETRIEVE, minSimilarity: SIMILARITY_FLOOR }),
    keywordSearch(deps.db, { reader: { orgId, userId }, words: searchTerms(question), limit: OVER_RETRIEVE }),
  ]);
  const byVector = new Set(vectorHits.map((hit) => hit.id));
  const relevantText = textHits.filter((hit) => byVector.has(hit.id) || keywordCoverage(words, hit.content) >= KEYWORD_COVERAGE_FLOOR);
  return selectHits(combine(vectorHits, relevantText)).map(toSource);
}

/** Share of the question's distinct content words (as keyword search uses them) that occur in `content`. */
export function keywordCoverage(questionWords: string[], content: string): number {
  const terms = new Set(questionWords.filter((word) => word.length > 1));
  if (terms.size === 0) return 0;
  const present = new Set(contentWords(content));
  let shared = 0;
  for (const term of terms) if (present.has(term)) shared++;
  return shared / terms.size;
}

/** Merges both hit lists into one score per chunk: 0.7 × cosine + 0.3 × (rank / best rank). */
export function combine(vectorHits: ChunkHit[], textHits: ChunkHit[]): ScoredHit[] {
  const bestRank = Math.max(0, ...textHits.map((hit) => hit.text_rank)) || 1;
  const merged = new Map<string, ScoredHit>();
  for (const hit of vectorHits) merged.set(hit.id, { ...hit, score: 0.7 * hit.similarity });
  for (const hit of textHits) {
    const existing = merged.get(hit.id);
    const textScore = 0.3 * (hit.text_rank / bestRank);
    if (existing) existing.score += textScore;
    else merged.set(hit.id, { ...hit, score: textScore });
  }
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

/** Best-first de-duplication, then the top `KEEP` in document order. */
export function selectHits(hits: ScoredHit[]): ScoredHit[] {
  const kept: ScoredHit[] = [];
  for (const hit of hits) {
    const duplicate = kept.some((other) => jaccard(other.content, hit.content) > 0.7);
    const adjacent = kept.some((other) => other.document_id === hit.document_id && Math.abs(other.position - hit.position) === 1);
    if (!duplicate && !adjacent) kept.push(hit);
    if (kept.length === KEEP) break;
  }
  return kept.sort((a, b) => a.document_title.localeCompare(b.document_title) || a.position - b.position);
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
