/** API and socket error codes as sentences a person can act on. */
import { ApiError } from "./api";
import { UPLOAD_FORMATS_TEXT } from "../../../lib/document-formats";
import { formatBytes, t } from "./i18n";
import type { TurnError } from "./types";

export { formatBytes } from "./i18n";

function wait(seconds: number | undefined): string {
  if (!seconds) return t("error.wait.moment");
  return seconds < 90 ? t("error.wait.seconds", { seconds: Math.ceil(seconds) }) : t("error.wait.minutes", { minutes: Math.ceil(seconds / 60) });
}

/**
 * One line for an error from the HTTP API, including what to do next. `sending` names what a
 * refusal for pace refused (messages in the chat, uploads in the document console).
 */
export function describeApiError(error: unknown, sending: "messages" | "uploads" | "reindex" = "messages"): string {
  if (!(error instanceof ApiError)) return t("error.page");
  switch (error.code) {
    case "RATE_LIMITED":
      return `${t("error.rateLimited", { sending, organisation: error.details.limit === "organisation" ? "yes" : "no" })} ${wait(error.retryAfter)}`;
    case "VALIDATION_ERROR": {
      const fields = error.details.fields as Array<{ message: string }> | undefined;
      return t("error.validation", { reasons: fields?.map((f) => f.message).join("; ") || error.message });
    }
    case "TURN_IN_PROGRESS":
      return t("error.turnInProgress");
    case "COURSE_NOT_AVAILABLE":
      return t("error.courseNotAvailable");
    case "UNAUTHORIZED":
      return t("error.unauthorized");
    case "FORBIDDEN":
      return error.message;
    case "QUEUE_UNAVAILABLE":
    case "SERVICE_UNAVAILABLE":
    case "DATABASE_TIMEOUT":
      return `${t("error.unavailable")} ${wait(error.retryAfter)}`;
    case "FILE_TOO_LARGE":
      return t("error.fileTooLarge", { limit: formatBytes(Number(error.details.limit_bytes)) });
    case "UNSUPPORTED_FILE_TYPE":
      return t("error.unsupportedFileType", { allowed: (error.details.allowed as string[] | undefined)?.join(", ") ?? UPLOAD_FORMATS_TEXT });
    case "NETWORK_ERROR":
      return t("error.network");
    default:
      return error.message;
  }
}

/** One line for a socket `error` event of a turn. */
export function describeTurnError(error: TurnError): string {
  switch (error.code) {
    case "RATE_LIMITED":
    case "LLM_RATE_LIMITED":
      return `${t("turnError.rateLimited")} ${wait(error.retryAfter)}`;
    case "LLM_UNAVAILABLE":
      return error.willRetry ? t("turnError.llmRetrying") : `${t("turnError.llmUnavailable")} ${error.recoveryHint ?? t("turnError.sendAgainMinute")}`;
    case "LLM_CONFIG_ERROR":
      return t("turnError.llmConfig");
    case "TURN_LOST":
      return t("turnError.lost");
    case "ACCOUNT_INACTIVE":
    case "FORBIDDEN":
    case "AI_ALLOWANCE_EXHAUSTED":
      return error.message;
    case "DATABASE_TIMEOUT":
      return error.willRetry ? t("turnError.databaseRetrying") : t("turnError.databaseTimeout");
    default:
      return error.willRetry ? t("turnError.retrying") : `${error.message || t("turnError.failed")} ${t("turnError.sendAgain")}`;
  }
}
