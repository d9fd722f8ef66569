/**
 * Our LLM errors. Business logic and clients never see a provider's exception: after retries
 * and fallbacks every fault is one of three codes, each with a message that says what to do,
 * and never the provider's raw text or a key. A turn's client sees the code on its `error`
 * event (workers/turns/stage-failure.ts); no HTTP answer carries one, so none has a status.
 */
import OpenAI from "openai";

export type LlmErrorCode = "LLM_UNAVAILABLE" | "LLM_CONFIG_ERROR" | "LLM_RATE_LIMITED";

/** How a provider failure should be handled. */
export type FaultKind = "transient" | "rate_limited" | "auth" | "not_found" | "rejected";

/** After retries and fallbacks every model fault is one of three codes, with a message that says what to do. */
export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly options: { retryAfterSeconds?: number; recoveryHint?: string; partial?: boolean; fault?: FaultKind } = {},
  ) {
    super(message);
    this.name = "LlmError";
  }
}

export interface Fault {
  kind: FaultKind;
  status?: number;
  retryAfterMs?: number;
}

export function classifyFault(error: unknown): Fault {
  if (error instanceof OpenAI.APIConnectionError) return { kind: "transient" };
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    if (status === 429) return { kind: "rate_limited", status, retryAfterMs: retryAfterMs(error.headers) };
    if (status === 401 || status === 403) return { kind: "auth", status };
    if (status === 404) return { kind: "not_found", status };
    if (status === undefined || status >= 500 || status === 408 || status === 409)
      return { kind: "transient", status, retryAfterMs: retryAfterMs(error.headers) };
    return { kind: "rejected", status };
  }
  // `TypeError: terminated`, socket resets and aborted streams: the connection died mid-way.
  return { kind: "transient" };
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get?.("retry-after-ms") ?? undefined;
  if (value && Number.isFinite(Number(value))) return Number(value);
  const seconds = headers?.get?.("retry-after");
  if (!seconds) return undefined;
  if (Number.isFinite(Number(seconds))) return Number(seconds) * 1000;
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The error a caller sees once retries and the fallback chain are exhausted. */
export function toLlmError(fault: Fault, context: FaultContext): LlmError {
  const error = describeFault(fault, context);
  error.options.fault = fault.kind;
  return error;
}

/** The settings an operator should check (`keyVariable` names the key of a fallback provider), and the model that failed. */
interface FaultContext {
  variable: string;
  keyVariable?: string;
  model: string;
  partial?: boolean;
}

function describeFault(fault: Fault, context: FaultContext): LlmError {
  const partial = context.partial ?? false;
  switch (fault.kind) {
    case "rate_limited": {
      const retryAfterSeconds = Math.max(1, Math.ceil((fault.retryAfterMs ?? 60_000) / 1000));
      return new LlmError("LLM_RATE_LIMITED", "The language model is rate limiting requests right now.", {
        retryAfterSeconds,
        recoveryHint: `Wait about ${retryAfterSeconds} s and send the message again.`,
        partial,
      });
    }
    case "auth":
      return new LlmError(
        "LLM_CONFIG_ERROR",
        `The language model rejected our credentials; check ${context.keyVariable ?? context.variable.replace(/_MODEL.*$/, "_API_KEY")}.`,
        {
          recoveryHint: "An operator needs to fix the API key; retrying will not help.",
          partial,
        },
      );
    case "not_found":
      return new LlmError("LLM_CONFIG_ERROR", `The model "${context.model}" or its endpoint was not found; check ${context.variable} and the base URL.`, {
        recoveryHint: "An operator needs to fix the model configuration; retrying will not help.",
        partial,
      });
    case "rejected":
      return new LlmError(
        "LLM_CONFIG_ERROR",
        `The language model rejected the request (HTTP ${fault.status}); check ${context.variable} and the provider's limits.`,
        {
          recoveryHint: "An operator needs to check the model configuration.",
          partial,
        },
      );
    case "transient":
      return new LlmError("LLM_UNAVAILABLE", "The language model is unavailable right now.", {
        recoveryHint: "Try again in a minute.",
        partial,
      });
  }
}
