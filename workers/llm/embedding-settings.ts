/**
 * The embedding model: which server and model, its vector width, and the question-embedding cache.
 */
import { z } from "zod";
import { defineSection, optionalString, booleanFlag, jsonList } from "../../lib/settings-section";
import { providerKey, providerUrl } from "./settings";

const embeddingProvider = z.strictObject({
  name: z.string().trim().min(1).max(40).optional(),
  base_url: providerUrl,
  api_key: providerKey,
  model: z.string().trim().min(1).optional(),
});

export const embeddingSettings = defineSection({
  environment: {
    EMBEDDING_BASE_URL: optionalString.pipe(z.url().optional()).describe("Separate endpoint for embeddings. Unset: `LLM_BASE_URL`."),
    EMBEDDING_API_KEY: optionalString.describe("Key for the embedding endpoint. Unset: `LLM_API_KEY`."),
    EMBEDDING_MODEL: z.string().trim().min(1).default("intfloat/multilingual-e5-small").describe("Embedding model name."),
    EMBEDDING_DIMENSIONS: z.coerce
      .number()
      .int()
      .min(2)
      .max(4000)
      .default(384)
      .describe(
        "Vector width, fixed when the database is first migrated and checked by workers at start-up. Above 2000 there is no HNSW index, " +
          "so searches do an exact scan.",
      ),
    EMBEDDING_PREFIXES: booleanFlag
      .optional()
      .describe(
        "Add E5's `query: ` / `passage: ` prefixes (other models must not get them). Unset: `true` when the model name, after any " +
          "`org/` prefix, starts with `e5` or `multilingual-e5`.",
      ),
    EMBEDDING_FALLBACK_PROVIDERS: jsonList(embeddingProvider).describe(
      'Embedding providers tried in order when the embedding endpoint is down: a JSON array of `{"base_url": …, "api_key": …, "model": …}` (`model` unset: ' +
        "`EMBEDDING_MODEL`). Each must answer `EMBEDDING_DIMENSIONS`-wide vectors: workers probe them at start-up and refuse to start otherwise. Use the " +
        "same model on another server: another model of the same width puts questions in a different vector space from the stored chunks.",
    ),
  },
  why: {
    EMBEDDING_BASE_URL: "Embeddings come from another server than the chat model.",
    EMBEDDING_API_KEY: "That embedding server needs its own key.",
    EMBEDDING_MODEL: "Choose the embedding model your server offers.",
    EMBEDDING_DIMENSIONS: "Must match your embedding model's vector width; fixed at the first migration.",
    EMBEDDING_PREFIXES: "Your E5-family model has a name the check does not recognise (or another model's name looks like E5).",
    EMBEDDING_FALLBACK_PROVIDERS: "Keep indexing and searching when your embedding server is down, from a second server with the same model.",
  },
  tunables: {
    // Chosen: a question repeated within five minutes costs no embedding call (workers/llm/query-embeddings.ts).
    EMBEDDING_QUERY_CACHE_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(86_400)
      .default(300)
      .describe(
        "How long a question's embedding is kept in Redis (per organisation, keyed by a SHA-256 of model, width and text), so a repeated question " +
          "is not embedded again. `0` = no cache.",
      ),
  },
  derive: (values) => ({
    /** Whether embedding inputs get E5 prefixes (explicit flag, else inferred from the model name). */
    embeddingPrefixes: values.EMBEDDING_PREFIXES ?? /(^|\/)(multilingual-)?e5/i.test(values.EMBEDDING_MODEL),
  }),
});
