/**
 * What a worker remembers between jobs to skip reads whose answers change slowly: an
 * organisation's size and valid index (which search path to take), whether its new chunks go to
 * the vector tail, and its terms' frequencies. One per process, in its deps (workers/host.ts);
 * none of it at module level, so a test or bench that builds its own deps starts afresh.
 */
import { vectorSearchCache, type VectorSearchCache } from "../db/queries/knowledge-search";
import { vectorTailDecisions } from "../db/queries/org-vector-indexes";
import type { LRUCache } from "lru-cache";
import { termFrequencyCache, type TermFrequencyCache } from "./tutor/retrieval/relevance";

export interface SearchCaches {
  vectorSearch: VectorSearchCache;
  tailDecisions: LRUCache<string, boolean>;
  termFrequencies: TermFrequencyCache;
}

export const searchCaches = (): SearchCaches => ({
  vectorSearch: vectorSearchCache(),
  tailDecisions: vectorTailDecisions(),
  termFrequencies: termFrequencyCache(),
});
