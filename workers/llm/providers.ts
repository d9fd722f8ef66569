/**
 * The providers a client may call, in the order it tries them: the one the LLM_* (or EMBEDDING_*)
 * settings name, then the fallback providers of LLM_FALLBACK_PROVIDERS (EMBEDDING_FALLBACK_PROVIDERS).
 * Each has its own base URL, key and models, and names the setting an operator must fix when it
 * fails, so an error message points at the right entry. Labels are a name or the URL's host:
 * they go into logs, so never a key, a path or URL credentials.
 */
import OpenAI from "openai";
import { modelFetch } from "./http-transport";
import { type Config, type LlmUseCase, modelFor, modelSettingOf, requireSetting } from "../../lib/config";
import type { ToolCallingMode } from "./json-tools";

export interface ChatProvider {
  label: string;
  api: OpenAI;
  toolCalling: ToolCallingMode;
  /** The model (or comma-separated chain) for a use case. */
  models(useCase: LlmUseCase): string;
  /** Settings named in error messages. */
  modelVariable(useCase: LlmUseCase): string;
  keyVariable: string;
}

export interface EmbeddingProvider {
  label: string;
  api: OpenAI;
  model: string;
  modelVariable: string;
  keyVariable: string;
}

/** Keys pasted with a trailing newline are the most common misconfiguration we see. */
export const cleanKey = (key: string | undefined): string => (key ?? "").replace(/\s+/g, "") || "not-needed";

const hostOf = (url: string): string => new URL(url).host;

const api = (config: Pick<Config, "llm" | "embedding">, baseURL: string, key: string | undefined): OpenAI =>
  new OpenAI({ maxRetries: 0, timeout: config.llm.LLM_TIMEOUT_MS, baseURL, apiKey: cleanKey(key), fetch: modelFetch });

export function chatProviders(config: Pick<Config, "llm" | "embedding">): ChatProvider[] {
  const baseURL = requireSetting(config.llm, "LLM_BASE_URL");
  const primary: ChatProvider = {
    label: hostOf(baseURL),
    api: api(config, baseURL, config.llm.LLM_API_KEY),
    toolCalling: config.llm.LLM_TOOL_CALLING,
    models: (useCase) => modelFor(config.llm, useCase),
    modelVariable: modelSettingOf,
    keyVariable: "LLM_API_KEY",
  };
  const fallbacks = (config.llm.LLM_FALLBACK_PROVIDERS ?? []).map((entry, index): ChatProvider => {
    const setting = `LLM_FALLBACK_PROVIDERS[${index}]`;
    return {
      label: entry.name ?? hostOf(entry.base_url),
      api: api(config, entry.base_url, entry.api_key),
      toolCalling: entry.tool_calling ?? config.llm.LLM_TOOL_CALLING,
      models: (useCase) => entry.model ?? modelFor(config.llm, useCase),
      modelVariable: () => `${setting}.model`,
      keyVariable: `${setting}.api_key`,
    };
  });
  return [primary, ...fallbacks];
}

export function embeddingProviders(config: Pick<Config, "llm" | "embedding">): EmbeddingProvider[] {
  const baseURL = config.embedding.EMBEDDING_BASE_URL ?? requireSetting(config.llm, "LLM_BASE_URL");
  const primary: EmbeddingProvider = {
    label: hostOf(baseURL),
    api: api(config, baseURL, config.embedding.EMBEDDING_API_KEY ?? config.llm.LLM_API_KEY),
    model: config.embedding.EMBEDDING_MODEL,
    modelVariable: "EMBEDDING_MODEL",
    keyVariable: "EMBEDDING_API_KEY",
  };
  const fallbacks = (config.embedding.EMBEDDING_FALLBACK_PROVIDERS ?? []).map((entry, index): EmbeddingProvider => {
    const setting = `EMBEDDING_FALLBACK_PROVIDERS[${index}]`;
    return {
      label: entry.name ?? hostOf(entry.base_url),
      api: api(config, entry.base_url, entry.api_key),
      model: entry.model ?? config.embedding.EMBEDDING_MODEL,
      modelVariable: `${setting}.model`,
      keyVariable: `${setting}.api_key`,
    };
  });
  return [primary, ...fallbacks];
}
