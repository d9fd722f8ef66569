/**
 * The content-gap report: when two questions are the same question, and how long a report is served.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const contentGapSettings = defineSection({
  tunables: {
    // The similarity groups near-identical wording with the offline model's hashed embeddings (eval/tuning.md).
    CONTENT_GAP_SIMILARITY: z.coerce
      .number()
      .min(0.1)
      .max(1)
      .default(0.8)
      .describe(
        "Cosine similarity at which two tutor questions count as the same question in the content-gap report. 0.8 groups near-identical wording with the offline model's hashed embeddings; E5 models place unrelated questions near 0.8, so use about 0.9 with them.",
      ),
    QUESTION_VECTOR_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(30_000)
      .describe(
        "How often the `question-vectors` maintenance sweep embeds answered tutor questions for the content-gap report (30 s: the report " +
          "lags its questions by about this much).",
      ),
    CONTENT_GAP_CACHE_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(5)
      .default(600)
      .describe(
        "How long a computed content-gap report is served from Redis. New question vectors, ratings and (de)activated people make it " +
          "stale at once (the next request recomputes it in a worker); this bounds how long anything else, like a renamed department, takes to show.",
      ),
  },
});
