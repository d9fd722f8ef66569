/**
 * The one door to language models. Callers name a use case and get text, streamed tokens or
 * vectors back; the client picks the model chain for that use case, retries transient faults
 * with backoff (honouring Retry-After), falls through the chain, trips the cooldown breaker,
 * records usage for every call, and turns whatever went wrong into an LlmError.
 */
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Logger } from "pino";
import { type Config, type LlmUseCase, modelFor, modelSettingOf } from "../../lib/config";
import { ModelCooldowns } from "./cooldowns";
import { classifyFault, LlmError, toLlmError, type Fault } from "./errors";
import { countMessageTokens, countTokens } from "./tokens";
import type { UsageRow } from "../../db/queries/llm-usage";
import { callKeyFor } from "./call-keys";
import { inModelSpan, type ModelRequest } from "./model-span";
import { CallbackFailure, IdleWatch, StreamCancelled } from "./stream-watch";
import { ProseGate, proseBeforeJson, readJsonReply, wireRequest } from "./json-tools";
import { readSseFrames } from "./sse-frames";
import { type ChatProvider, chatProviders, type EmbeddingProvider, embeddingProviders } from "./providers";
import type { QueryEmbeddingCache } from "./query-embeddings";

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

/** A model call as the client reports it; the sink prices it (workers/usage-log.ts). */
export type UsageRecord = Omit<UsageRow, "costUsd">;

export type UsageSink = (record: UsageRecord) => Promise<void> | void;

export interface LlmClientOptions {
  usage?: UsageSink;
  log?: Logger;
  cooldowns?: ModelCooldowns;
  /** Retry timing; tests shorten it. */
  retry?: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  sleep?: (ms: number) => Promise<void>;
  /** Question embeddings shared through Redis (workers/host.ts); unset, every question is embedded. */
  queryCache?: QueryEmbeddingCache;
}

export { cleanKey } from "./providers";

export class LlmClient {
  /** The primary provider first, then LLM_FALLBACK_PROVIDERS in order (providers.ts). */
  private readonly chatProviders: ChatProvider[];
  /** The embedding endpoint first, then EMBEDDING_FALLBACK_PROVIDERS. */
  readonly embeddingProviders: EmbeddingProvider[];
  /** This client's breaker: every call through it skips a provider+model that just failed (tests clear it between cases). */
  readonly cooldowns: ModelCooldowns;
  private readonly retry: NonNullable<LlmClientOptions["retry"]>;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly config: Config,
    private readonly options: LlmClientOptions = {},
  ) {
    this.chatProviders = chatProviders(config);
    this.embeddingProviders = embeddingProviders(config);
    this.cooldowns = options.cooldowns ?? new ModelCooldowns();
    this.retry = options.retry ?? { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The primary provider's models for a use case, in order (a comma-separated setting is a fallback chain). */
  modelChain(useCase: LlmUseCase): string[] {
    return splitChain(modelFor(this.config.llm, useCase));
  }

  async chat(context: CallContext, messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    return this.acrossChain(context, (provider, model) => {
      const wire = wireRequest(provider, messages, options);
      return inModelSpan(this.chatRequest(context, provider, model, wire.messages, options), async (call) => {
        const started = performance.now();
        const response = await provider.api.chat.completions.create({
          model,
          messages: wire.messages,
          max_tokens: options.maxTokens,
          temperature: options.temperature,
          ...(wire.tools ? { tools: wire.tools } : {}),
        });
        const message = response.choices[0]?.message;
        const raw = message?.content ?? "";
        const nativeCalls: ToolCall[] = (message?.tool_calls ?? [])
          .filter((call) => call.type === "function")
          .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
        const { content, toolCalls } = wire.json
          ? readJsonReply(raw, proseBeforeJson(raw), options, provider, model, context.useCase)
          : { content: raw, toolCalls: nativeCalls };
        const result: ChatResult = {
          content,
          toolCalls,
          model,
          promptTokens: response.usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
          completionTokens: response.usage?.completion_tokens ?? countTokens(raw),
        };
        call.answered({ ...result, output: message });
        await this.record(context, result, performance.now() - started, false, messages);
        return result;
      });
    });
  }

  /**
   * Streams a completion, calling `onToken` with the text as it arrives: once per read of the
   * response, with the text of every chunk that read brought (sse-frames.ts). A failure
   * before the first token is retried like any call, and falls through to the next model or
   * provider; after it, the stream is not restarted here (the caller already showed text): the
   * error surfaces with `partial: true`. With `options.tools` the model may answer with tool
   * calls instead of (or after) text; in JSON tool mode text that may be a tool call is held
   * back until the reply is read.
   */
  async stream(context: CallContext, messages: ChatMessage[], options: ChatOptions, onToken: (text: string) => Promise<void> | void): Promise<ChatResult> {
    if (options.signal?.aborted) throw new StreamCancelled("");
    return this.acrossChain(context, (provider, model, markPartial) => {
      const wire = wireRequest(provider, messages, options);
      return inModelSpan(this.chatRequest(context, provider, model, wire.messages, options), async (call) => {
        const started = performance.now();
        const watch = new IdleWatch(this.config.llm.LLM_STREAM_IDLE_TIMEOUT_MS, options.signal);
        const gate = wire.json ? new ProseGate() : undefined;
        const show = async (text: string): Promise<void> => {
          if (!text) return;
          markPartial();
          try {
            await onToken(text);
          } catch (error) {
            throw new CallbackFailure(error);
          }
        };
        let content = "";
        let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
        let sent = false;
        try {
          // The SDK sends the request (auth, base URL, its errors for a non-2xx status); the body is
          // decoded here, a whole read at a time (sse-frames.ts).
          sent = true;
          const response = await provider.api.chat.completions
            .create(
              {
                model,
                messages: wire.messages,
                max_tokens: options.maxTokens,
                temperature: options.temperature,
                stream: true,
                stream_options: { include_usage: true },
                ...(wire.tools ? { tools: wire.tools, ...(options.toolChoice ? { tool_choice: options.toolChoice } : {}) } : {}),
              },
              { signal: watch.controller.signal },
            )
            .asResponse();
          // Until the headers arrive LLM_TIMEOUT_MS applies; from here on, silence is what we watch.
          watch.touch();
          // Tool calls arrive as deltas keyed by index: the id and name once, the arguments in pieces.
          const calls: ToolCall[] = [];
          await readSseFrames<ChatCompletionChunk>(response, (chunks) => {
            watch.touch();
            if (chunks.length === 0) return;
            call.firstChunk();
            // One read often carries many chunks: their text goes to the caller in one piece.
            let text = "";
            for (const chunk of chunks) {
              if (chunk.usage) usage = chunk.usage;
              const delta = chunk.choices[0]?.delta;
              if (!delta) continue;
              for (const piece of delta.tool_calls ?? []) {
                const toolCall = (calls[piece.index] ??= { id: "", name: "", arguments: "" });
                if (piece.id) toolCall.id = piece.id;
                if (piece.function?.name) toolCall.name += piece.function.name;
                if (piece.function?.arguments) toolCall.arguments += piece.function.arguments;
              }
              if (delta.content) text += delta.content;
            }
            if (!text) return;
            content += text;
            const shown = gate ? gate.push(text) : text;
            if (shown) return show(shown);
          });
          // An abort that lands after the last read still ends the call as cancelled (or silent), not as an answer.
          const stoppedEarly = watch.reason(content);
          if (stoppedEarly) throw stoppedEarly;
          let reply = { content, toolCalls: calls.filter((call) => call?.name) };
          if (gate) {
            reply = readJsonReply(content, gate.shown, options, provider, model, context.useCase);
            // An answer after all: what was held back is shown now.
            if (reply.toolCalls.length === 0) await show(gate.release());
          }
          const result: ChatResult = {
            ...reply,
            model,
            promptTokens: usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
            completionTokens: usage?.completion_tokens ?? countTokens(content + calls.map((call) => call.arguments).join("")),
          };
          call.answered({ ...result, output: { role: "assistant", content, tool_calls: result.toolCalls } });
          await this.record(context, result, performance.now() - started, true, messages);
          return result;
        } catch (error) {
          const ended = watch.reason(content) ?? error;
          // A stream its caller gave up (a cancelled turn, a discarded speculative answer) was still
          // read by the model: its prompt and what it streamed so far count against the allowance.
          if (ended instanceof StreamCancelled && sent) {
            const spent = {
              model,
              promptTokens: usage?.prompt_tokens ?? countMessageTokens(wire.messages.map(asCountable)),
              completionTokens: usage?.completion_tokens ?? countTokens(content),
            };
            // Keyed apart from a finished call of the same request: a retry that sends the same messages
            // and finishes must still be charged in full (record_llm_usage keeps the first row of a key).
            await this.record(context, spent, performance.now() - started, true, { messages, aborted: true });
          }
          throw ended;
        } finally {
          watch.stop();
        }
      });
    });
  }

  /** The model span's view of a chat request (model-span.ts). */
  private chatRequest(context: CallContext, provider: ChatProvider, model: string, messages: ChatMessage[], options: ChatOptions): ModelRequest {
    return {
      operation: "chat",
      model,
      baseURL: provider.api.baseURL,
      useCase: context.useCase,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      input: messages,
    };
  }

  /**
   * Embeds texts with the E5 `query: ` / `passage: ` prefixes when the model expects them. A
   * question of an organisation is looked up in the query cache first (query-embeddings.ts).
   */
  async embed(texts: string[], kind: "query" | "passage", context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase }): Promise<number[][]> {
    if (texts.length === 0) return [];
    const input = this.config.embedding.embeddingPrefixes ? texts.map((text) => `${kind}: ${text}`) : texts;
    const cache = kind === "query" && context?.orgId ? this.options.queryCache : undefined;
    const orgId = context?.orgId ?? "";
    const dimensions = this.config.embedding.EMBEDDING_DIMENSIONS;
    const cached = cache
      ? await Promise.all(input.map((text) => cache.get({ orgId, model: this.config.embedding.EMBEDDING_MODEL, dimensions, input: text })))
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
      await Promise.all(missing.map((index) => cache.set({ orgId, model: answered.model, dimensions, input: input[index]! }, vectors[index]!)));
    }
    return vectors;
  }

  /**
   * One provider's answer to the start-up probe (workers/embedding-check.ts): its retries but no
   * fallback, so each provider's width is checked on its own.
   */
  async probeEmbedding(provider: EmbeddingProvider): Promise<number[] | undefined> {
    const input = this.config.embedding.embeddingPrefixes ? ["query: dimension probe"] : ["dimension probe"];
    const [vector] = await this.withRetries(
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
        const vectors = await this.withRetries(
          () => this.embedOnce(provider, input, kind, context),
          this.embeddingCallOf(provider),
          () => false,
        );
        return { model: provider.model, vectors };
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        last = error;
        this.options.log?.warn({ provider: provider.label, model: provider.model, code: error.code }, "embedding provider failed; trying the next");
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
          await this.record(
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

  /**
   * Every provider's models for the use case, providers in order, ordered by the breaker. A key
   * one provider refuses skips that provider's other models (they share it), not the next provider.
   */
  private async acrossChain<T>(context: CallContext, call: (provider: ChatProvider, model: string, markPartial: () => void) => Promise<T>): Promise<T> {
    const candidates = new Map(
      this.chatProviders.flatMap((provider) =>
        splitChain(provider.models(context.useCase)).map((model) => [`chat|${provider.api.baseURL}|${model}`, { provider, model }] as const),
      ),
    );
    const refused = new Set<ChatProvider>();
    let last: LlmError | undefined;
    for (const cooldownKey of this.cooldowns.order([...candidates.keys()]) as Array<typeof candidates extends Map<infer K, unknown> ? K : never>) {
      const { provider, model } = candidates.get(cooldownKey)!;
      if (refused.has(provider)) continue;
      try {
        let partial = false;
        return await this.withRetries(
          () => call(provider, model, () => (partial = true)),
          { variable: provider.modelVariable(context.useCase), keyVariable: provider.keyVariable, model, cooldownKey },
          () => partial,
        );
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        last = error;
        // Text already reached the user: another model would start the answer over.
        if (error.options.partial) throw error;
        if (error.options.fault === "auth") refused.add(provider);
        this.options.log?.warn({ provider: provider.label, model, code: error.code, useCase: context.useCase }, "model failed; trying the next in the chain");
      }
    }
    throw last ?? new LlmError("LLM_CONFIG_ERROR", `No model configured; set ${modelSettingOf(context.useCase)} or LLM_MODEL.`);
  }

  private async withRetries<T>(call: () => Promise<T>, { cooldownKey, ...context }: RetryContext, isPartial: () => boolean): Promise<T> {
    let fault: Fault = { kind: "transient" };
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (error instanceof LlmError || error instanceof StreamCancelled) throw error;
        // Our own token handler failed (e.g. Redis): not the model's fault, no retry, no cooldown.
        if (error instanceof CallbackFailure) throw error.cause;
        fault = classifyFault(error);
        const partial = isPartial();
        const retryable = (fault.kind === "transient" || fault.kind === "rate_limited") && !partial;
        this.options.log?.warn({ model: context.model, attempt, fault: fault.kind, status: fault.status, partial }, "model call failed");
        if (!retryable || attempt === this.retry.attempts) {
          this.cooldowns.trip(cooldownKey, fault.kind, fault.retryAfterMs);
          throw toLlmError(fault, { ...context, partial });
        }
        const backoff = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
        await this.sleep(fault.retryAfterMs !== undefined ? Math.min(fault.retryAfterMs, 60_000) : backoff);
      }
    }
    throw toLlmError(fault, context);
  }

  private async record(
    context: CallContext,
    result: Pick<ChatResult, "model" | "promptTokens" | "completionTokens">,
    durationMs: number,
    streamed: boolean,
    /** What was sent: with the job, it names the call so a re-run is not charged twice (call-keys.ts). */
    request: unknown,
  ): Promise<void> {
    if (!this.options.usage) return;
    try {
      await this.options.usage({
        orgId: context.orgId ?? null,
        userId: context.userId ?? null,
        useCase: context.useCase,
        model: result.model,
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        durationMs: Math.round(durationMs),
        streamed,
        callKey: callKeyFor(result.model, request),
      });
    } catch (error) {
      // Usage is observability: losing a row must never fail the user's turn.
      this.options.log?.warn({ err: error }, "could not record LLM usage");
    }
  }
}

function asCountable(message: ChatMessage): { role: string; content: string } {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
  return { role: message.role, content };
}

interface RetryContext {
  /** The settings an error message tells the operator to check. */
  variable: string;
  keyVariable: string;
  model: string;
  cooldownKey: string;
}

const splitChain = (setting: string): string[] =>
  setting
    .split(",")
    .map((model) => model.trim())
    .filter(Boolean);
