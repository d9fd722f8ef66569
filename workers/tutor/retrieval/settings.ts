/**
 * Hybrid search and grounding: measured on eval/results.md's corpus (`npm run eval`, eval/tuning.md), not facts about a deployment.
 */
import { z } from "zod";
import { defineSection } from "../../../lib/settings-section";

export const retrievalSettings = defineSection({
  tunables: {
    // Measured on eval/results.md's corpus (`npm run eval`, scripts/eval/tune-retrieval.ts and
    // tune-grounding.ts); what each figure led to is in eval/tuning.md.
    RETRIEVAL_FUSION: z
      .enum(["weighted", "rrf"])
      .default("weighted")
      .describe("How hybrid search merges vector and keyword hits: weighted sum of scores, or reciprocal rank fusion (eval/results.md compares them)."),
    RETRIEVAL_VECTOR_WEIGHT: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.6)
      .describe("Weighted fusion: the cosine similarity's share; the keyword rank gets the rest."),
    RETRIEVAL_RRF_K: z.coerce.number().int().min(1).max(1000).default(60).describe("Reciprocal rank fusion: the k in 1 / (k + rank)."),
    RETRIEVAL_SIMILARITY_FLOOR: z.coerce.number().min(0).max(1).default(0.3).describe("Vector hits below this cosine similarity are not evidence."),
    RETRIEVAL_EXACT_MAX_CHUNKS: z.coerce
      .number()
      .int()
      .min(0)
      .default(2_000)
      .describe(
        "An organisation with at most this many chunks is searched exactly (recall 1); a larger one gets an HNSW index of its own, built concurrently by the maintenance sweep, and is searched exactly until that index is valid. The default is where the index overtakes exact search on PostgreSQL (bench/results-vector-1m.md). 0: every organisation gets an index.",
      ),
    VECTOR_INDEX_BUILD_MEMORY_MB: z.coerce
      .number()
      .int()
      .min(16)
      .default(512)
      .describe(
        "`maintenance_work_mem` of the session that builds an organisation's HNSW index: a graph that does not fit is built far slower. 100,000 chunks of 384 dimensions need ≈ 250 MB.",
      ),
    // The keyword side's floor, a third: half cost 2–4 points of recall@5 on eval/results.md's
    // corpus (paraphrases rarely repeat more). One shared word ("who" in "Who won the 1998 world
    // cup?") is not evidence, and letting it through would keep an unrelated question off the
    // general rung; a rare token the question is about (ZEBRA-7) easily clears it.
    RETRIEVAL_KEYWORD_COVERAGE_FLOOR: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.34)
      .describe("A chunk only keyword search found must contain this share of the question's content words."),
    RETRIEVAL_GROUNDING_COVERAGE: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.55)
      .describe(
        "A passage or document grounds an answer only when it covers this share of the question's terms, each weighted by its rarity in the organisation's material (a passage adds half its cosine similarity; or it clears RETRIEVAL_GROUNDING_SIMILARITY); eval/tuning.md.",
      ),
    RETRIEVAL_GROUNDING_SIMILARITY: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe(
        "Cosine similarity at which a passage grounds an answer whatever words it shares; measured with the offline hashed embeddings, re-measure it for another embedding model (eval/tuning.md).",
      ),
  },
});
