/**
 * Errors as the API answers them. Everything the product refuses is a `Refusal` (lib/refusal.ts),
 * whether a route, a command or the data layer refused it; its kind gets its HTTP status here,
 * once. A zod failure is a 400 naming each field; a backing service that is down a 503; anything
 * else a 500 with a generic message (and a log line).
 */
import { isStatementTimeout } from "../db/unavailable";
import type { Middleware } from "koa";
import { ZodError } from "zod";
import type { Logger } from "pino";
import { Refusal, type RefusalKind } from "../lib/refusal";

/** An error as the API answers it: status, stable code, message and any details. */
interface HttpAnswer {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Where every kind of refusal — from a route, a command or the data layer — gets its HTTP status: here, once. */
export const REFUSAL_STATUS: Record<RefusalKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  allowance_exhausted: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  wrong_host: 421,
  key_reused: 422,
  unprocessable: 422,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  unavailable: 503,
  // An admin action item's rejection is recorded on the item; should one reach a request, the state did not allow it.
  rejected: 409,
};

export const badRequest = (message: string, details?: Record<string, unknown>): Refusal => new Refusal("invalid", "VALIDATION_ERROR", message, details);
export const unauthorized = (message = "Authentication required"): Refusal => new Refusal("unauthenticated", "UNAUTHORIZED", message);
export const forbidden = (message = "You do not have access to this resource"): Refusal => new Refusal("forbidden", "FORBIDDEN", message);
export const notFound = (what: string): Refusal => Refusal.notFound(what);

/** Turns a zod failure into a 400 that names each bad field, an unknown one included (strict bodies). */
export function fromZod(error: ZodError, where = "body"): Refusal {
  const fields = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: [where, ...issue.path, key].join("."), message: `unknown field "${key}": this endpoint does not accept it` }))
      : [{ path: [where, ...issue.path].join("."), message: issue.message }],
  );
  const summary = fields.map((f) => `${f.path}: ${f.message}`).join("; ");
  return new Refusal("invalid", "VALIDATION_ERROR", `Invalid request: ${summary}`, { fields });
}

/** The outermost middleware: every error leaves as `{"error": {"code", "message"}}`. */
export function errorMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new Refusal("not_found", "NOT_FOUND", `No route for ${ctx.method} ${ctx.path}`);
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

/** A refusal as the API answers it: the status its kind means, its own code and message. */
function fromRefusal(refusal: Refusal): HttpAnswer {
  return { status: REFUSAL_STATUS[refusal.kind], code: refusal.code, message: refusal.message, details: refusal.details };
}

/** The status a thrown error will be answered with (for middleware that records outcomes, e.g. audits). */
export function statusOf(caught: unknown): number {
  return normalise(caught).status;
}

function normalise(caught: unknown): HttpAnswer {
  if (caught instanceof Refusal) return fromRefusal(caught);
  if (caught instanceof ZodError) return fromRefusal(fromZod(caught));
  if (isStatementTimeout(caught)) {
    return fromRefusal(
      new Refusal(
        "unavailable",
        "DATABASE_TIMEOUT",
        "The database took too long to answer and the request was cancelled; nothing was changed by it unless its answer said otherwise. Retry shortly.",
        { retry_after: 5 },
      ),
    );
  }
  if (isBackingServiceDown(caught)) {
    return fromRefusal(
      new Refusal(
        "unavailable",
        "SERVICE_UNAVAILABLE",
        "A backing service (Redis or Postgres) is unavailable; nothing was changed by this request unless its answer said otherwise. Retry shortly.",
      ),
    );
  }
  const status = (caught as { status?: number; statusCode?: number })?.status ?? (caught as { statusCode?: number })?.statusCode;
  // Errors raised by Koa middleware (body parser: malformed JSON, too large, wrong type).
  if (status === 501) return { status: 501, code: "NOT_IMPLEMENTED", message: "This method is not implemented" };
  if (typeof status === "number" && status >= 400 && status < 500) {
    const codes: Record<number, string> = { 400: "BAD_REQUEST", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" };
    const message = status === 400 ? "Malformed request body: expected valid JSON" : ((caught as Error).message ?? "Bad request");
    return { status, code: codes[status] ?? "BAD_REQUEST", message };
  }
  return { status: 500, code: "INTERNAL_ERROR", message: "Something went wrong on our side; the request was not completed" };
}
