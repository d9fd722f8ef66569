/** API and socket error codes as sentences a person can act on. */
import { ApiError } from "./api";
import { UPLOAD_FORMATS_TEXT } from "../../../lib/document-formats";
import type { TurnError } from "./types";

function wait(seconds: number | undefined): string {
  if (!seconds) return "Wait a moment and try again.";
  return seconds < 90 ? `Try again in ${Math.ceil(seconds)} seconds.` : `Try again in about ${Math.ceil(seconds / 60)} minutes.`;
}

/**
 * One line for an error from the HTTP API, including what to do next. `sending` names what a
 * refusal for pace refused ("messages" in the chat, "uploads" in the document console).
 */
export function describeApiError(error: unknown, sending = "messages"): string {
  if (!(error instanceof ApiError)) return "Something went wrong in the page. Reload it and try again.";
  switch (error.code) {
    case "RATE_LIMITED":
      return `You are sending ${sending} faster than allowed${error.details.limit === "organisation" ? " for your organisation" : ""}. ${wait(error.retryAfter)}`;
    case "VALIDATION_ERROR": {
      const fields = error.details.fields as Array<{ message: string }> | undefined;
      return `That was not accepted: ${fields?.map((f) => f.message).join("; ") || error.message}.`;
    }
    case "TURN_IN_PROGRESS":
      return "The assistant is still answering your previous message here. Wait for it to finish, then send this again (nothing was saved).";
    case "COURSE_NOT_AVAILABLE":
      return "That course is not available to you any more (not enrolled, or archived). Pick another context or none.";
    case "UNAUTHORIZED":
      return "Your sign-in has expired or is not valid. Sign in again.";
    case "FORBIDDEN":
      return error.message;
    case "QUEUE_UNAVAILABLE":
    case "SERVICE_UNAVAILABLE":
    case "DATABASE_TIMEOUT":
      return `The service is busy or partly down, and nothing was saved. ${wait(error.retryAfter)}`;
    case "FILE_TOO_LARGE":
      return `That file is too large (the limit is ${formatBytes(Number(error.details.limit_bytes))}). Split it or ask an operator to raise UPLOAD_MAX_BYTES.`;
    case "UNSUPPORTED_FILE_TYPE":
      return `That file type is not accepted. Allowed: ${(error.details.allowed as string[] | undefined)?.join(", ") ?? UPLOAD_FORMATS_TEXT}.`;
    case "NETWORK_ERROR":
      return error.message;
    default:
      return error.message;
  }
}

/** One line for a socket `error` event of a turn. */
export function describeTurnError(error: TurnError): string {
  switch (error.code) {
    case "RATE_LIMITED":
    case "LLM_RATE_LIMITED":
      return `The model is rate limited right now. ${wait(error.retryAfter)}`;
    case "LLM_UNAVAILABLE":
      return error.willRetry
        ? "The model did not answer; trying again…"
        : `The model is unavailable, so this answer could not be written. ${error.recoveryHint ?? "Send your message again in a minute."}`;
    case "LLM_CONFIG_ERROR":
      return "The model is not set up correctly on the server (an operator needs to check LLM_* settings). Your message was kept.";
    case "TURN_LOST":
      return "This answer was lost on the server. Send your message again.";
    case "ACCOUNT_INACTIVE":
    case "FORBIDDEN":
    case "AI_ALLOWANCE_EXHAUSTED":
      return error.message;
    case "DATABASE_TIMEOUT":
      return error.willRetry
        ? "The database was slow; trying again…"
        : "The database took too long, so this answer was stopped. Send your message again in a moment.";
    default:
      return error.willRetry ? "Something went wrong; trying again…" : `${error.message || "Something went wrong while answering."} Send your message again.`;
  }
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "?";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} kB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}
