/**
 * How a model call survives faults: each transient fault is retried with exponential backoff
 * (honouring Retry-After), a model that keeps failing trips the cooldown breaker, and a use case's
 * call falls through its chain — every provider's models, ordered by the breaker — until one answers.
 * A call that already showed text is never retried nor handed to another model.
 */
import type { Logger } from "pino";
import { modelSettingOf } from "../../lib/config";
import type { CallContext } from "./client";
import type { ModelCooldowns } from "./cooldowns";
import { classifyFault, LlmError, toLlmError, type Fault } from "./errors";
import type { ChatProvider } from "./providers";
import { CallbackFailure, StreamCancelled } from "./stream-watch";

/** Retry timing; tests shorten it. */
export interface RetryTiming {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetryContext {
  /** The settings an error message tells the operator to check. */
  variable: string;
  keyVariable: string;
  model: string;
  cooldownKey: string;
}

export class CallPolicy {
  constructor(
    private readonly cooldowns: ModelCooldowns,
    private readonly retry: RetryTiming,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly log: Logger | undefined,
  ) {}

  /**
   * Every provider's models for the use case, providers in order, ordered by the breaker. A key
   * one provider refuses skips that provider's other models (they share it), not the next provider.
   */
  async acrossChain<T>(
    chatProviders: ChatProvider[],
    context: CallContext,
    call: (provider: ChatProvider, model: string, markPartial: () => void) => Promise<T>,
  ): Promise<T> {
    const candidates = new Map(
      chatProviders.flatMap((provider) =>
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
        this.log?.warn({ provider: provider.label, model, code: error.code, useCase: context.useCase }, "model failed; trying the next in the chain");
      }
    }
    throw last ?? new LlmError("LLM_CONFIG_ERROR", `No model configured; set ${modelSettingOf(context.useCase)} or LLM_MODEL.`);
  }

  async withRetries<T>(call: () => Promise<T>, { cooldownKey, ...context }: RetryContext, isPartial: () => boolean): Promise<T> {
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
        this.log?.warn({ model: context.model, attempt, fault: fault.kind, status: fault.status, partial }, "model call failed");
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
}

/** A model setting's chain: a comma-separated setting names fallback models in order. */
export const splitChain = (setting: string): string[] =>
  setting
    .split(",")
    .map((model) => model.trim())
    .filter(Boolean);
