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
import { TtlCache } from "../../../lib/ttl-cache";
import { termFrequencies } from "../../../db/queries/knowledge-search";
import type { WorkerDeps } from "../../deps";
import { normalise } from "../language";
import { contentTermsOf, type QuestionTerm } from "./question-terms";

export interface Relevance {
  terms: QuestionTerm[];
  /** Rarity weight of each term, same order. */
  weights: number[];
  /** Share of the question's term weight `text` covers, 0–1 (0 for a question without content terms). */
  coverage(text: string): number;
  /** The same share for a per-term match list (the document rung's tsvector matches). */
  coverageOf(matched: boolean[]): number;
}

/** Rarity of a term held by `df` of `units` chunks (BM25's idf: never negative, ln 2 for an empty org). */
export function rarity(df: number, units: number): number {
  return Math.log(1 + (units - df + 0.5) / (df + 0.5));
}

/** Whether a folded word is an occurrence of the term: a prefix for stems of four letters or more, else the word itself. */
function occurs(term: QuestionTerm, word: string): boolean {
  return term.stem.length >= 4 ? word.startsWith(term.stem) : word === term.stem;
}

/** Builds the judge from terms and their weights (pure: the unit tests use it without a database). */
export function relevanceOf(terms: QuestionTerm[], weights: number[]): Relevance {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const coverageOf = (matched: boolean[]) => (total > 0 ? matched.reduce((sum, hit, i) => sum + (hit ? weights[i]! : 0), 0) / total : 0);
  return {
    terms,
    weights,
    coverageOf,
    coverage(text: string) {
      if (terms.length === 0) return 0;
      const words = [...new Set(normalise(text).split(" "))];
      return coverageOf(terms.map((term) => words.some((word) => occurs(term, word))));
    },
  };
}

/** How long an org's term frequencies are trusted: they change only as documents are indexed. */
const FREQUENCY_TTL_MS = 60_000;
const MAX_CACHED = 20_000;

/** A term's frequency in an org's material, as remembered (in the worker's deps: `searchCaches.termFrequencies`). */
export type TermFrequencyCache = TtlCache<{ df: number; units: number }>;

export const termFrequencyCache = (): TermFrequencyCache => new TtlCache(FREQUENCY_TTL_MS, MAX_CACHED);

/** The question's terms weighted by their rarity in the org's material; frequencies are remembered for a minute. */
export async function relevanceFor(deps: Pick<WorkerDeps, "db" | "searchCaches">, orgId: string, question: string): Promise<Relevance> {
  const cached = deps.searchCaches.termFrequencies;
  const terms = contentTermsOf(question);
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
  const weights = terms.map((term, i) => {
    // Read back from this call's own results: a cache that just started over must not lose a term.
    const entry = known[i] ?? fetched.get(key(term))!;
    return rarity(entry.df, entry.units);
  });
  return relevanceOf(terms, weights);
}
