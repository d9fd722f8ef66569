/**
 * The one door to language models. Callers name a use case and get text, streamed tokens or
 * vectors back; the client picks the model chain for that use case, retries transient faults
 * with backoff (honouring Retry-After), falls through the chain, trips the cooldown breaker,
 * records usage for every call, and turns whatever went wrong into an LlmError.
 */
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Logger } from "pino";
import { type Config, type LlmUseCase, modelFor, modelSettingOf, requireSetting } from "../../lib/config";
import { ModelCooldowns } from "./cooldowns";
import { classifyFault, LlmError, toLlmError, type Fault } from "./errors";
import { countMessageTokens, countTokens } from "./tokens";
import type { UsageRow } from "../../db/queries/llm-usage";
import { callKeyFor } from "./call-keys";
import { inModelSpan, type ModelRequest } from "./model-span";
import { CallbackFailure, IdleWatch, StreamCancelled } from "./stream-watch";

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
}

/** Keys pasted with a trailing newline are the most common misconfiguration we see. */
export const cleanKey = (key: string | undefined): string => (key ?? "").replace(/\s+/g, "") || "not-needed";

export class LlmClient {
  private readonly chatApi: OpenAI;
  private readonly embeddingApi: OpenAI;
  /** This client's breaker: every call through it skips a model that just failed (tests clear it between cases). */
  readonly cooldowns: ModelCooldowns;
  private readonly retry: NonNullable<LlmClientOptions["retry"]>;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly config: Config,
    private readonly options: LlmClientOptions = {},
  ) {
    const baseURL = requireSetting(config, "LLM_BASE_URL");
    const common = { maxRetries: 0, timeout: config.LLM_TIMEOUT_MS };
    this.chatApi = new OpenAI({ ...common, baseURL, apiKey: cleanKey(config.LLM_API_KEY) });
    this.embeddingApi = new OpenAI({
      ...common,
      baseURL: config.EMBEDDING_BASE_URL ?? baseURL,
      apiKey: cleanKey(config.EMBEDDING_API_KEY ?? config.LLM_API_KEY),
    });
    this.cooldowns = options.cooldowns ?? new ModelCooldowns();
    this.retry = options.retry ?? { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000 };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The models tried for a use case, in order (a comma-separated setting is a fallback chain). */
  modelChain(useCase: LlmUseCase): string[] {
    return modelFor(this.config, useCase)
      .split(",")
      .map((model) => model.trim())
      .filter(Boolean);
  }

  async chat(context: CallContext, messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    return this.acrossChain(context, (model) =>
      inModelSpan(this.chatRequest(context, model, messages, options), async (call) => {
        const started = performance.now();
        const response = await this.chatApi.chat.completions.create({
          model,
          messages,
          max_tokens: options.maxTokens,
          temperature: options.temperature,
          ...(options.tools?.length ? { tools: options.tools } : {}),
        });
        const message = response.choices[0]?.message;
        const content = message?.content ?? "";
        const toolCalls: ToolCall[] = (message?.tool_calls ?? [])
          .filter((call) => call.type === "function")
          .map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
        const result: ChatResult = {
          content,
          toolCalls,
          model,
          promptTokens: response.usage?.prompt_tokens ?? countMessageTokens(messages.map(asCountable)),
          completionTokens: response.usage?.completion_tokens ?? countTokens(content),
        };
        call.answered({ ...result, output: message });
        await this.record(context, result, performance.now() - started, false, messages);
        return result;
      }),
    );
  }

  /**
   * Streams a completion, calling `onToken` for each piece of text as it arrives. A failure
   * before the first token is retried like any call; after it, the stream is not restarted
   * here (the caller already showed text): the error surfaces with `partial: true`. With
   * `options.tools` the model may answer with tool calls instead of (or after) text.
   */
  async stream(context: CallContext, messages: ChatMessage[], options: ChatOptions, onToken: (text: string) => Promise<void> | void): Promise<ChatResult> {
    if (options.signal?.aborted) throw new StreamCancelled("");
    return this.acrossChain(context, (model, markPartial) =>
      inModelSpan(this.chatRequest(context, model, messages, options), async (call) => {
        const started = performance.now();
        const watch = new IdleWatch(this.config.LLM_STREAM_IDLE_TIMEOUT_MS, options.signal);
        let content = "";
        try {
          const stream = await this.chatApi.chat.completions.create(
            {
              model,
              messages,
              max_tokens: options.maxTokens,
              temperature: options.temperature,
              stream: true,
              stream_options: { include_usage: true },
              ...(options.tools?.length ? { tools: options.tools, ...(options.toolChoice ? { tool_choice: options.toolChoice } : {}) } : {}),
            },
            { signal: watch.controller.signal },
          );
          // Until the headers arrive LLM_TIMEOUT_MS applies; from here on, silence is what we watch.
          watch.touch();
          let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
          // Tool calls arrive as deltas keyed by index: the id and name once, the arguments in pieces.
          const calls: ToolCall[] = [];
          for await (const chunk of stream) {
            watch.touch();
            call.firstChunk();
            if (chunk.usage) usage = chunk.usage;
            for (const delta of chunk.choices[0]?.delta?.tool_calls ?? []) {
              const call = (calls[delta.index] ??= { id: "", name: "", arguments: "" });
              if (delta.id) call.id = delta.id;
              if (delta.function?.name) call.name += delta.function.name;
              if (delta.function?.arguments) call.arguments += delta.function.arguments;
            }
            const piece = chunk.choices[0]?.delta?.content;
            if (piece) {
              markPartial();
              content += piece;
              try {
                await onToken(piece);
              } catch (error) {
                throw new CallbackFailure(error);
              }
            }
          }
          // The SDK ends the iteration quietly on abort: an early end of our own making is not an answer.
          const stoppedEarly = watch.reason(content);
          if (stoppedEarly) throw stoppedEarly;
          const result: ChatResult = {
            content,
            toolCalls: calls.filter((call) => call?.name),
            model,
            promptTokens: usage?.prompt_tokens ?? countMessageTokens(messages.map(asCountable)),
            completionTokens: usage?.completion_tokens ?? countTokens(content + calls.map((call) => call.arguments).join("")),
          };
          call.answered({ ...result, output: { role: "assistant", content, tool_calls: result.toolCalls } });
          await this.record(context, result, performance.now() - started, true, messages);
          return result;
        } catch (error) {
          throw watch.reason(content) ?? error;
        } finally {
          watch.stop();
        }
      }),
    );
  }

  /** The model span's view of a chat request (model-span.ts). */
  private chatRequest(context: CallContext, model: string, messages: ChatMessage[], options: ChatOptions): ModelRequest {
    return {
      operation: "chat",
      model,
      baseURL: this.chatApi.baseURL,
      useCase: context.useCase,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      input: messages,
    };
  }

  /** Embeds texts with the E5 `query: ` / `passage: ` prefixes when the model expects them. */
  async embed(texts: string[], kind: "query" | "passage", context?: Omit<CallContext, "useCase"> & { useCase?: LlmUseCase }): Promise<number[][]> {
    if (texts.length === 0) return [];
    const model = this.config.EMBEDDING_MODEL;
    const input = this.config.embeddingPrefixes ? texts.map((text) => `${kind}: ${text}`) : texts;
    return this.withRetries(
      () =>
        inModelSpan(
          {
            operation: "embeddings",
            model,
            baseURL: this.embeddingApi.baseURL,
            useCase: context?.useCase ?? (kind === "query" ? "tutor" : "ingestion"),
            input,
          },
          async (call) => {
            const started = performance.now();
            const response = await this.embeddingApi.embeddings.create({ model, input });
            call.answered({ model, promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: 0 });
            const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding as number[]);
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
        ),
      // Its own key: an embeddings outage must not cool down a chat model of the same name or server.
      { variable: "EMBEDDING_MODEL", model, cooldownKey: `embeddings|${this.embeddingApi.baseURL}|${model}` },
      () => false,
    );
  }

  private async acrossChain<T>(context: CallContext, call: (model: string, markPartial: () => void) => Promise<T>): Promise<T> {
    const chain = this.modelChain(context.useCase);
    const byKey = new Map(chain.map((model) => [this.chatCooldownKey(model), model]));
    const ordered = this.cooldowns.order([...byKey.keys()]).map((key) => byKey.get(key)!);
    let last: LlmError | undefined;
    for (const model of ordered) {
      try {
        let partial = false;
        return await this.withRetries(
          () => call(model, () => (partial = true)),
          { variable: modelSettingOf(context.useCase), model, cooldownKey: this.chatCooldownKey(model) },
          () => partial,
        );
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        last = error;
        // Text already reached the user, or the key itself was refused (every model shares it).
        if (error.options.partial || error.options.fault === "auth") throw error;
        this.options.log?.warn({ model, code: error.code, useCase: context.useCase }, "model failed; trying the next in the chain");
      }
    }
    throw last ?? new LlmError("LLM_CONFIG_ERROR", `No model configured; set ${modelSettingOf(context.useCase)} or LLM_MODEL.`);
  }

  private chatCooldownKey(model: string): string {
    return `chat|${this.chatApi.baseURL}|${model}`;
  }

  private async withRetries<T>(
    call: () => Promise<T>,
    { cooldownKey, ...context }: { variable: string; model: string; cooldownKey: string },
    isPartial: () => boolean,
  ): Promise<T> {
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
