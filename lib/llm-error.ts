/**
 * The vocabulary of model failures, shared by the workers that call the model and the server
 * that turns such an error into an HTTP answer. It lives below both (no model SDK here) so the
 * server never has to import from workers/.
 */

export type LlmErrorCode = "LLM_UNAVAILABLE" | "LLM_CONFIG_ERROR" | "LLM_RATE_LIMITED";

/** How a provider failure should be handled. */
export type FaultKind = "transient" | "rate_limited" | "auth" | "not_found" | "rejected";

const STATUS: Record<LlmErrorCode, number> = { LLM_UNAVAILABLE: 502, LLM_CONFIG_ERROR: 503, LLM_RATE_LIMITED: 429 };

/** After retries and fallbacks every model fault is one of three codes, each with an HTTP status and a message that says what to do. */
export class LlmError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly options: { retryAfterSeconds?: number; recoveryHint?: string; partial?: boolean; fault?: FaultKind } = {},
  ) {
    super(message);
    this.name = "LlmError";
    this.httpStatus = STATUS[code];
  }
}
