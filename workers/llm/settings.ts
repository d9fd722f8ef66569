/**
 * The chat model: which server, which models for which use, and how long to wait for it.
 */
import { z } from "zod";
import { defineSection, optionalString, jsonList } from "../../lib/settings-section";

export const providerUrl = z.url({ protocol: /^https?$/ });
export const providerKey = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined);

const chatProvider = z.strictObject({
  name: z.string().trim().min(1).max(40).optional(),
  base_url: providerUrl,
  api_key: providerKey,
  model: z.string().trim().min(1).optional(),
  tool_calling: z.enum(["native", "json"]).optional(),
});

export const llmSettings = defineSection({
  environment: {
    LLM_BASE_URL: optionalString
      .pipe(z.url().optional())
      .describe("Base URL of an OpenAI-compatible API, ending in `/v1`. Unset, `npm start` runs the offline model server."),
    LLM_API_KEY: optionalString.describe("Bearer key; whitespace is stripped. Servers that need none (Ollama, vLLM) work without it."),
    LLM_MODEL: z.string().trim().min(1).default("offline-extractive").describe("Default model for every use case. A comma-separated list is a fallback chain."),
    LLM_MODEL_TUTOR: optionalString.describe("Intent classification, choosing PageIndex modules, session summaries. Unset: `LLM_MODEL`."),
    LLM_MODEL_GENERATION: optionalString.describe("The streamed tutor answer. Unset: `LLM_MODEL_TUTOR`, then `LLM_MODEL`."),
    LLM_MODEL_ADMIN: optionalString.describe("Model (or fallback chain) of the admin assistant's tool-calling turns. Unset: `LLM_MODEL`."),
    LLM_STREAM_IDLE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe(
        "A streaming answer that sends nothing for this long is abandoned: retried when no text was shown yet, else the turn ends with " +
          "`LLM_UNAVAILABLE`. Raise it for slow local models.",
      ),
    LLM_FALLBACK_PROVIDERS: jsonList(chatProvider).describe(
      "Providers tried in order after `LLM_BASE_URL` when it is down (connection refused, timeout, 5xx, 429 after retries, 404): a JSON array of " +
        '`{"base_url": "https://…/v1", "api_key": "…", "model": "…", "tool_calling": "json", "name": "…"}`. `model` is a model or comma-separated ' +
        "chain for every use case (unset: the same model names as the primary); `api_key` may be left out for servers that need none; `name` labels " +
        "logs (unset: the URL's host). Each provider+model has its own cool-down. A stream falls back only before its first token.",
    ),
    LLM_TOOL_CALLING: z
      .enum(["native", "json"])
      .default("native")
      .describe(
        "How the admin assistant calls tools. `native`: the API's `tools` field. `json`: for models without tool calling (many local ones), the tools " +
          "are described in the prompt and the model's JSON reply (bare, fenced or amid prose) is read into tool calls. A fallback provider may set its own.",
      ),
    LLM_CONTEXT_WINDOW: z
      .preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(2_048).optional())
      .describe(
        "The model's context window in tokens: the tutor's budgets (history, sources, the reply) and the admin assistant's requests (history, tools and tool results) are fitted into it. " +
          "Unset: looked up from the model's name (8,192 for a name it does not know); set it for a local model served with a smaller window.",
      ),
  },
  why: {
    LLM_BASE_URL: "Point at your model server (OpenAI, Azure, vLLM, Ollama); unset runs the offline demo model.",
    LLM_API_KEY: "Your model server needs a key.",
    LLM_MODEL: "Choose the model (or a comma-separated fallback chain) every use case runs on.",
    LLM_MODEL_TUTOR: "Run the cheap background steps (intent, module choice, summaries) on a smaller model than the answer.",
    LLM_MODEL_GENERATION: "Stream tutor answers from another model than the rest.",
    LLM_MODEL_ADMIN: "The admin assistant needs a model that calls tools well.",
    LLM_STREAM_IDLE_TIMEOUT_MS: "A slow local model pauses longer than 30 s between tokens.",
    LLM_FALLBACK_PROVIDERS: "Keep answering when your main model provider is down, from a second provider.",
    LLM_TOOL_CALLING: "Your model server has no native tool calling (many local models): use `json`.",
    LLM_CONTEXT_WINDOW: "Your model is served with a smaller (or larger) context window than its name suggests.",
  },
  tunables: {
    // Until a provider's response headers: long enough for a cold model, short enough to fall back.
    LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000).describe("Timeout of one model request until its response headers."),
  },
});
