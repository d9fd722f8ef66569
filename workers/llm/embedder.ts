/**
 * Embeddings: texts embedded with the E5 `query: ` / `passage: ` prefixes when the model expects
 * them, each provider tried in the breaker's order with its own retries, a fallback's vectors
 * checked against the column's width, a question of an organisation looked up in the query cache
 * first (query-embeddings.ts), and the start-up probe of one provider's width.
 */
import type { Logger } from "pino";
import type { Config, LlmUseCase } from "../../lib/config";
import type { CallPolicy, RetryContext } from "./call-policy";
import type { CallContext } from "./client";
import type { ModelCooldowns } from "./cooldowns";
import { LlmError } from "./errors";
import { inModelSpan } from "./model-span";
import type { EmbeddingProvider } from "./providers";
import type { QueryEmbeddingCache } from "./query-embeddings";
import type { UsageRecorder } from "./usage-recorder";

export class Embedder {
  constructor(
    private readonly config: Config,
    /** The embedding endpoint first, then EMBEDDING_FALLBACK_PROVIDERS. */
    private readonly embeddingProviders: EmbeddingProvider[],
    private readonly cooldowns: ModelCooldowns,
    private readonly policy: CallPolicy,
    private readonly usage: UsageRecorder,
    private readonly queryCache: QueryEmbeddingCache | undefined,
    private readonly log: Logger | undefined,
  ) {}

  /**
   * Embeds texts with the E5 `query: ` / `passage: ` prefixes when the model expects them. A
   * question of an organisation is looked up in the query cache first (query-embeddings.ts).
   */
  async embed(texts: string[], kind: "query" | "passage", context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase }): Promise<number[][]> {
    if (texts.length === 0) return [];
    const input = this.config.embedding.embeddingPrefixes ? texts.map((text) => `${kind}: ${text}`) : texts;
    const cache = kind === "query" && context?.orgId ? this.queryCache : undefined;
    const orgId = context?.orgId ?? "";
    const userId = context?.userId ?? undefined;
    const dimensions = this.config.embedding.EMBEDDING_DIMENSIONS;
    const cached = cache
      ? await Promise.all(input.map((text) => cache.get({ orgId, userId, model: this.config.embedding.EMBEDDING_MODEL, dimensions, input: text })))
      : [];
    const missing = input.flatMap((_text, index) => (cached[index] === undefined ? [index] : []));
    if (missing.length === 0) return cached as number[][];
    const answered = await this.embedAcross(
      missing.map((index) => input[index]!),
      kind,
      context,
    );
    const vectors = input.map((_, index) => cached[index] ?? answered.vectors[missing.indexOf(index)]!);
    if (cache) {
      // Under the model that answered: a fallback's vectors are not another model's.
      await Promise.all(missing.map((index) => cache.set({ orgId, userId, model: answered.model, dimensions, input: input[index]! }, vectors[index]!)));
    }
    return vectors;
  }

  /**
   * One provider's answer to the start-up probe (workers/embedding-check.ts): its retries but no
   * fallback, so each provider's width is checked on its own.
   */
  async probeEmbedding(provider: EmbeddingProvider): Promise<number[] | undefined> {
    const input = this.config.embedding.embeddingPrefixes ? ["query: dimension probe"] : ["dimension probe"];
    const [vector] = await this.policy.withRetries(
      () => this.embedOnce(provider, input, "query", undefined, false),
      this.embeddingCallOf(provider),
      () => false,
    );
    return vector;
  }

  private async embedAcross(
    input: string[],
    kind: "query" | "passage",
    context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase },
  ): Promise<{ model: string; vectors: number[][] }> {
    const byKey = new Map(this.embeddingProviders.map((provider) => [this.embeddingCallOf(provider).cooldownKey, provider]));
    let last: LlmError | undefined;
    for (const key of this.cooldowns.order([...byKey.keys()])) {
      const provider = byKey.get(key)!;
      try {
        const vectors = await this.policy.withRetries(
          () => this.embedOnce(provider, input, kind, context),
          this.embeddingCallOf(provider),
          () => false,
        );
        return { model: provider.model, vectors };
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        last = error;
        this.log?.warn({ provider: provider.label, model: provider.model, code: error.code }, "embedding provider failed; trying the next");
      }
    }
    throw last ?? new LlmError("LLM_CONFIG_ERROR", "No embedding provider configured; set EMBEDDING_MODEL.");
  }

  /** Its own cooldown key: an embeddings outage must not cool down a chat model of the same name or server. */
  private embeddingCallOf(provider: EmbeddingProvider): RetryContext {
    return {
      variable: provider.modelVariable,
      keyVariable: provider.keyVariable,
      model: provider.model,
      cooldownKey: `embeddings|${provider.api.baseURL}|${provider.model}`,
    };
  }

  private async embedOnce(
    provider: EmbeddingProvider,
    input: string[],
    kind: "query" | "passage",
    context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase },
    /** Off for the start-up probe, whose whole point is to report the width. */
    guardWidth = true,
  ): Promise<number[][]> {
    const { model } = provider;
    return inModelSpan(
      { operation: "embeddings", model, baseURL: provider.api.baseURL, useCase: context?.useCase ?? (kind === "query" ? "tutor" : "ingestion"), input },
      async (call) => {
        const started = performance.now();
        const response = await provider.api.embeddings.create({ model, input });
        call.answered({ model, promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: 0 });
        const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding as number[]);
        // A fallback that was down at start-up was never probed: its vectors must still fit the column.
        const width = this.config.embedding.EMBEDDING_DIMENSIONS;
        if (guardWidth && provider !== this.embeddingProviders[0] && vectors.some((vector) => vector.length !== width)) {
          this.cooldowns.trip(this.embeddingCallOf(provider).cooldownKey, "not_found");
          throw new LlmError(
            "LLM_CONFIG_ERROR",
            `The embedding provider ${provider.label} returns vectors of ${vectors[0]?.length} dimensions, not EMBEDDING_DIMENSIONS=${width}; check ${provider.modelVariable}.`,
            { fault: "rejected" },
          );
        }
        if (context) {
          await this.usage.record(
            { useCase: kind === "query" ? "tutor" : "ingestion", ...context },
            // The model that answered, as it names itself (the offline model's hashed vectors are not the E5 model asked for).
            { model: `embedding:${response.model || model}`, promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: 0 },
            performance.now() - started,
            false,
            input,
          );
        }
        return vectors;
      },
    );
  }
}
