/**
 * Whether a passage answers a question, rather than merely sharing a word with it. A question's
 * distinctive terms are weighted by how rare they are in the organisation's own material
 * (inverse document frequency over its chunks, a title word counting for every chunk of its
 * document), so "policy", "manual" or "days" in an org whose titles and text repeat them weigh
 * little, and a term the material never uses ("remote") weighs most: a passage that lacks it
 * cannot be what the question is about. A passage grounds an answer when it covers enough of
 * that weight (RETRIEVAL_GROUNDING_COVERAGE) or its embedding is close enough to the question's
 * (RETRIEVAL_GROUNDING_SIMILARITY); eval/tuning.md has the measurements behind both floors.
 */
import { LRUCache } from "lru-cache";
import { termFrequencies } from "../../../db/queries/knowledge-search";
import type { WorkerDeps } from "../../deps";
import type { Language } from "../../../lib/language";
import { contentTermsOf, occursIn, type QuestionTerm, textWordsOf } from "./question-terms";
import { EVERYDAY_WEIGHT } from "./word-families";

export interface Relevance {
  terms: QuestionTerm[];
  /** Weight of each term, same order: its rarity, a fifth of it for an everyday word. */
  weights: number[];
  /** Whether the organisation's material holds each term at all, same order. */
  mentioned: boolean[];
  /**
   * Share of the question's term weight `text` covers, 0–1, of the clause it covers best (a
   * question of two clauses is answered by a passage that answers either); 0 for a question
   * without content terms.
   */
  coverage(text: string): number;
  /** The same share for a per-term match list, same order as `terms` (the document rung's tsvector matches). */
  coverageOf(matched: boolean[]): number;
  /**
   * Whether `text` covers at least `floor` of a clause that asks about nothing the organisation's
   * material never mentions: a key term no chunk holds ("letter", "sick") is what a question is
   * about, and a passage without it cannot answer that clause, whatever else it shares.
   */
  coversAll(text: string, floor: number): boolean;
}

/** Rarity of a term held by `df` of `units` chunks (BM25's idf: never negative, ln 2 for an empty org). */
export function rarity(df: number, units: number): number {
  return Math.log(1 + (units - df + 0.5) / (df + 0.5));
}

/**
 * Builds the judge from terms, their rarities and whether the organisation's material holds them
 * at all (pure: the unit tests use it without a database).
 * Each clause is judged on its own terms; an everyday word weighs EVERYDAY_WEIGHT of its rarity,
 * so a passage that shares only "days" and "year" with a question about sick days covers little.
 */
export function relevanceOf(terms: QuestionTerm[], rarities: number[], unknown: boolean[] = terms.map(() => false)): Relevance {
  const weights = terms.map((term, i) => rarities[i]! * (term.everyday ? EVERYDAY_WEIGHT : 1));
  const clauses = [...new Set(terms.map((term) => term.clause))].map((clause) => terms.flatMap((term, i) => (term.clause === clause ? [i] : [])));
  const clauseCoverage = (members: number[], matched: boolean[]) => {
    const total = members.reduce((sum, i) => sum + weights[i]!, 0);
    return total > 0 ? members.reduce((sum, i) => sum + (matched[i] ? weights[i]! : 0), 0) / total : 0;
  };
  const coverageOf = (matched: boolean[]) => Math.max(0, ...clauses.map((members) => clauseCoverage(members, matched)));
  const matchesOf = (text: string) => {
    const words = textWordsOf(text, terms);
    return terms.map((term) => words.some((word) => occursIn(term, word)));
  };
  return {
    terms,
    weights,
    mentioned: unknown.map((never) => !never),
    coverageOf,
    coverage(text: string) {
      if (terms.length === 0) return 0;
      return coverageOf(matchesOf(text));
    },
    coversAll(text: string, floor: number) {
      const matched = matchesOf(text);
      return clauses.some((members) => clauseCoverage(members, matched) >= floor && members.every((i) => matched[i] || terms[i]!.everyday || !unknown[i]));
    },
  };
}

/** How long an org's term frequencies are trusted: they change only as documents are indexed. */
const FREQUENCY_TTL_MS = 60_000;
const MAX_CACHED = 20_000;

/** A term's frequency in an org's material, as remembered (in the worker's deps: `searchCaches.termFrequencies`). */
export type TermFrequencyCache = LRUCache<string, { df: number; units: number }>;

export const termFrequencyCache = (): TermFrequencyCache => new LRUCache({ max: MAX_CACHED, ttl: FREQUENCY_TTL_MS });

/** The question's terms (read in its language) weighted by their rarity in the org's material; frequencies are remembered for a minute. */
export async function relevanceFor(deps: Pick<WorkerDeps, "db" | "searchCaches">, orgId: string, question: string, language?: Language): Promise<Relevance> {
  const cached = deps.searchCaches.termFrequencies;
  const terms = contentTermsOf(question, language);
  const key = (term: { query: string }) => `${orgId}\u0000${term.query}`;
  const known = terms.map((term) => cached.get(key(term)));
  const missing = terms.filter((_, i) => !known[i]);
  const fetched = new Map<string, { df: number; units: number }>();
  if (missing.length > 0) {
    const { units, frequencies } = await termFrequencies(
      deps.db,
      orgId,
      missing.map((term) => term.query),
    );
    missing.forEach((term, i) => {
      const entry = { df: frequencies[i]!, units };
      fetched.set(key(term), entry);
      cached.set(key(term), entry);
    });
  }
  const rarities = terms.map((term, i) => {
    // Read back from this call's own results: a term the cache just evicted must not be lost.
    const entry = known[i] ?? fetched.get(key(term))!;
    return rarity(entry.df, entry.units);
  });
  const unknown = terms.map((term, i) => (known[i] ?? fetched.get(key(term))!).df === 0);
  return relevanceOf(terms, rarities, unknown);
}
