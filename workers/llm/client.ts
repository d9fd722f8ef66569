/**
 * The one door to language models. Callers name a use case and get text, streamed tokens or
 * vectors back; the client picks the model chain for that use case, retries transient faults
 * with backoff (honouring Retry-After), falls through the chain, trips the cooldown breaker,
 * records usage for every call, and turns whatever went wrong into an LlmError. Each of those is
 * its own module: the answered chat (chat-completion.ts), the streamed one (chat-stream.ts),
 * embeddings (embedder.ts), retries, breaker and chain (call-policy.ts), usage (usage-recorder.ts).
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Logger } from "pino";
import { type Config, type LlmUseCase, modelFor } from "../../lib/config";
import { CallPolicy, type RetryTiming, splitChain } from "./call-policy";
import { type ChatCallDeps, completeChat } from "./chat-completion";
import { streamChat } from "./chat-stream";
import { ModelCooldowns } from "./cooldowns";
import { Embedder } from "./embedder";
import { chatProviders, type EmbeddingProvider, embeddingProviders } from "./providers";
import { ReasoningModels } from "./reasoning-budget";
import type { QueryEmbeddingCache } from "./query-embeddings";
import { UsageRecorder, type UsageSink } from "./usage-recorder";

export type ChatMessage = ChatCompletionMessageParam;

export interface CallContext {
  useCase: LlmUseCase;
  orgId?: string | null;
  userId?: string | null;
}

export interface ChatOptions {
  maxTokens?: number;
  temperature?: number;
  tools?: ChatCompletionTool[];
  /** "none" keeps the tools visible (the history mentions them) but asks for a plain answer. */
  toolChoice?: "auto" | "none";
  /** Aborts the call (a cancelled turn): the stream stops and `StreamCancelled` is thrown. */
  signal?: AbortSignal;
  /**
   * Streamed calls: a reasoning model's thinking as it arrives, apart from the answer `onToken`
   * gets (reasoning-split.ts). Without it the thinking is dropped; it is never in the result.
   */
  onReasoning?: (text: string) => Promise<void> | void;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  model: string;
  promptTokens: number;
  completionTokens: number;
}

export interface LlmClientOptions {
  usage?: UsageSink;
  log?: Logger;
  cooldowns?: ModelCooldowns;
  /** Retry timing; tests shorten it. */
  retry?: RetryTiming;
  sleep?: (ms: number) => Promise<void>;
  /** Question embeddings shared through Redis (workers/host.ts); unset, every question is embedded. */
  queryCache?: QueryEmbeddingCache;
}

export class LlmClient {
  /** The embedding endpoint first, then EMBEDDING_FALLBACK_PROVIDERS. */
  readonly embeddingProviders: EmbeddingProvider[];
  /** This client's breaker: every call through it skips a provider+model that just failed (tests clear it between cases). */
  readonly cooldowns: ModelCooldowns;
  /** The models this client saw thinking before they answer (reasoning-budget.ts); tests that switch thinking off clear it. */
  readonly reasoningModels = new ReasoningModels();
  /** The primary provider first, then LLM_FALLBACK_PROVIDERS in order (providers.ts), with the policy and usage every chat call shares. */
  private readonly chats: ChatCallDeps;
  private readonly embedder: Embedder;

  constructor(
    private readonly config: Config,
    options: LlmClientOptions = {},
  ) {
    const chats = chatProviders(config);
    this.embeddingProviders = embeddingProviders(config);
    this.cooldowns = options.cooldowns ?? new ModelCooldowns();
    const retry = options.retry ?? { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 };
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const policy = new CallPolicy(this.cooldowns, retry, sleep, options.log);
    const usage = new UsageRecorder(options.usage, options.log);
    this.chats = { config, chatProviders: chats, policy, usage, reasoning: this.reasoningModels };
    this.embedder = new Embedder(config, this.embeddingProviders, this.cooldowns, policy, usage, options.queryCache, options.log);
  }

  /** The primary provider's models for a use case, in order (a comma-separated setting is a fallback chain). */
  modelChain(useCase: LlmUseCase): string[] {
    return splitChain(modelFor(this.config.llm, useCase));
  }

  async chat(context: CallContext, messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    return completeChat(this.chats, context, messages, options);
  }

  /** Streams a completion, calling `onToken` with the text as it arrives (chat-stream.ts says how). */
  async stream(context: CallContext, messages: ChatMessage[], options: ChatOptions, onToken: (text: string) => Promise<void> | void): Promise<ChatResult> {
    return streamChat(this.chats, context, messages, options, onToken);
  }

  /**
   * Embeds texts with the E5 `query: ` / `passage: ` prefixes when the model expects them. A
   * question of an organisation is looked up in the query cache first (query-embeddings.ts).
   */
  async embed(texts: string[], kind: "query" | "passage", context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase }): Promise<number[][]> {
    return this.embedder.embed(texts, kind, context);
  }

  /**
   * One provider's answer to the start-up probe (workers/embedding-check.ts): its retries but no
   * fallback, so each provider's width is checked on its own.
   */
  async probeEmbedding(provider: EmbeddingProvider): Promise<number[] | undefined> {
    return this.embedder.probeEmbedding(provider);
  }
}
