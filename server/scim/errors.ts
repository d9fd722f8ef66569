/**
 * Every failure of the SCIM endpoint as a SCIM error response (RFC 7644 §3.12): the library's own
 * errors as they are, the product's refusals by kind, a malformed body or a schema mismatch as
 * 400 `invalidValue`/`invalidSyntax`, and anything unexpected as a 500 whose detail says nothing.
 */
import type { Logger } from "pino";
import { ZodError } from "zod";
import { Refusal, type RefusalKind } from "../../lib/refusal";
import { SCIMMY } from "./library";

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: string;
  detail: string;
}

export interface ScimFailure {
  status: number;
  body: ScimErrorBody;
  retryAfter?: number;
}

export const scimError = (status: number, scimType: string | undefined, detail: string): SCIMMY.Types.SCIMError =>
  new SCIMMY.Types.Error(status, scimType ?? "", detail);

const REFUSAL: Partial<Record<RefusalKind, { status: number; scimType?: string }>> = {
  invalid: { status: 400, scimType: "invalidValue" },
  unauthenticated: { status: 401 },
  forbidden: { status: 403 },
  not_found: { status: 404 },
  conflict: { status: 409, scimType: "uniqueness" },
  too_large: { status: 413 },
  unsupported_media: { status: 415 },
  rate_limited: { status: 429 },
  unavailable: { status: 503 },
  wrong_host: { status: 421 },
};

const body = (status: number, scimType: string | undefined, detail: string): ScimErrorBody => ({
  schemas: [ERROR_SCHEMA],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

/**
 * Runs the library's schema coercion: it throws TypeErrors naming the attribute ("Required
 * attribute 'userName' is missing"), which are the client's fault here and nowhere else.
 */
export function coerced<T>(coerce: () => T): T {
  try {
    return coerce();
  } catch (error) {
    if (error instanceof TypeError) throw scimError(400, "invalidValue", error.message);
    throw error;
  }
}

export function toScimFailure(caught: unknown, log: Logger): ScimFailure {
  if (caught instanceof SCIMMY.Types.Error) {
    if (caught.status >= 500) log.error({ err: caught }, "SCIM request failed");
    return { status: caught.status, body: body(caught.status, caught.scimType || undefined, caught.message) };
  }
  if (caught instanceof Refusal) {
    const mapped = REFUSAL[caught.kind] ?? { status: 400, scimType: "invalidValue" };
    const retryAfter = typeof caught.details?.retry_after === "number" ? caught.details.retry_after : undefined;
    return { status: mapped.status, body: body(mapped.status, mapped.scimType, caught.message), retryAfter };
  }
  if (caught instanceof ZodError) {
    const detail = caught.issues.map((issue) => `${issue.path.join(".") || "request"}: ${issue.message}`).join("; ");
    return { status: 400, body: body(400, "invalidValue", detail) };
  }
  log.error({ err: caught }, "SCIM request failed");
  return { status: 500, body: body(500, undefined, "Something went wrong on our side; the request was not completed") };
}
