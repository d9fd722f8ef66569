/**
 * HTTP errors with a stable code. Anything thrown that is not an HttpError becomes a 500
 * with a generic message (and a log line); everything else keeps its status and code.
 */
import { isStatementTimeout } from "../db/unavailable";
import type { Middleware } from "koa";
import { ZodError } from "zod";
import type { Logger } from "pino";
import { LlmError } from "../lib/llm-error";
import { CommandRefused, type RefusalKind } from "../commands/refusal";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>): HttpError => new HttpError(400, "VALIDATION_ERROR", message, details);
export const unauthorized = (message = "Authentication required"): HttpError => new HttpError(401, "UNAUTHORIZED", message);
export const forbidden = (message = "You do not have access to this resource"): HttpError => new HttpError(403, "FORBIDDEN", message);
export const notFound = (what: string): HttpError => new HttpError(404, "NOT_FOUND", `${what} not found`);

/** Turns a zod failure into a 400 that names each bad field, an unknown one included (strict bodies). */
export function fromZod(error: ZodError, where = "body"): HttpError {
  const fields = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: [where, ...issue.path, key].join("."), message: `unknown field "${key}": this endpoint does not accept it` }))
      : [{ path: [where, ...issue.path].join("."), message: issue.message }],
  );
  const summary = fields.map((f) => `${f.path}: ${f.message}`).join("; ");
  return new HttpError(400, "VALIDATION_ERROR", `Invalid request: ${summary}`, { fields });
}

/** The outermost middleware: every error leaves as `{"error": {"code", "message"}}`. */
export function errorMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, "NOT_FOUND", `No route for ${ctx.method} ${ctx.path}`);
    } catch (caught) {
      const error = normalise(caught);
      if (error.status >= 500) log.error({ err: caught, path: ctx.path }, "request failed");
      ctx.status = error.status;
      ctx.body = { error: { code: error.code, message: error.message, ...(error.details ?? {}) } };
      const retryAfter = error.details?.retry_after;
      if (typeof retryAfter === "number") ctx.set("Retry-After", String(retryAfter));
    }
  };
}

/** Redis or Postgres unreachable: a 503 the client can retry, not a 500. */
function isBackingServiceDown(caught: unknown): boolean {
  const error = caught as { name?: string; message?: string; code?: string } | undefined;
  if (!error || typeof error !== "object") return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  if (error.code && ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P03", "53300"].includes(error.code)) return true;
  // "OOM command not allowed": Redis at maxmemory with noeviction refuses writes; nothing queued is lost.
  return /Connection is closed|Stream isn't writeable|Command timed out|Knex: Timeout acquiring a connection|Connection terminated|^OOM command not allowed/i.test(
    error.message ?? "",
  );
}

const REFUSAL_STATUS: Record<RefusalKind, number> = { not_found: 404, conflict: 409, unavailable: 503 };

/** A command's refusal as the API answers it: the status its kind means, its own code and message. */
function fromRefusal(refusal: CommandRefused): HttpError {
  return new HttpError(REFUSAL_STATUS[refusal.kind], refusal.code, refusal.message, refusal.details);
}

function normalise(caught: unknown): HttpError {
  if (caught instanceof HttpError) return caught;
  if (caught instanceof CommandRefused) return fromRefusal(caught);
  if (caught instanceof ZodError) return fromZod(caught);
  if (isStatementTimeout(caught)) {
    return new HttpError(
      503,
      "DATABASE_TIMEOUT",
      "The database took too long to answer and the request was cancelled; nothing was changed by it unless its answer said otherwise. Retry shortly.",
      { retry_after: 5 },
    );
  }
  if (isBackingServiceDown(caught)) {
    return new HttpError(
      503,
      "SERVICE_UNAVAILABLE",
      "A backing service (Redis or Postgres) is unavailable; nothing was changed by this request unless its answer said otherwise. Retry shortly.",
    );
  }
  if (caught instanceof LlmError) {
    return new HttpError(caught.httpStatus, caught.code, caught.message, {
      ...(caught.options.retryAfterSeconds ? { retry_after: caught.options.retryAfterSeconds } : {}),
      ...(caught.options.recoveryHint ? { recovery_hint: caught.options.recoveryHint } : {}),
    });
  }
  const status = (caught as { status?: number; statusCode?: number })?.status ?? (caught as { statusCode?: number })?.statusCode;
  // Errors raised by Koa middleware (body parser: malformed JSON, too large, wrong type).
  if (status === 501) return new HttpError(501, "NOT_IMPLEMENTED", "This method is not implemented");
  if (typeof status === "number" && status >= 400 && status < 500) {
    const codes: Record<number, string> = { 400: "BAD_REQUEST", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" };
    const message = status === 400 ? "Malformed request body: expected valid JSON" : ((caught as Error).message ?? "Bad request");
    return new HttpError(status, codes[status] ?? "BAD_REQUEST", message);
  }
  return new HttpError(500, "INTERNAL_ERROR", "Something went wrong on our side; the request was not completed");
}
