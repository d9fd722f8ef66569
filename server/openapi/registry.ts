/**
 * What each HTTP route promises, declared once: method, path, who may call it, the zod schemas
 * its handler validates with (the same objects, imported from the route's schema.ts), what it
 * answers and which error codes it can give. server/openapi/document.ts turns the declarations
 * into OpenAPI 3.1, and test/server/openapi/document.test.ts checks them against the routes actually mounted.
 */
import type { z } from "zod";
import type { ErrorCode } from "./error-codes";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * - `public`: no credentials.
 * - `bearer`: any signed-in user (`Authorization: Bearer <JWT>`).
 * - `admin`: an admin's token (`403 FORBIDDEN` for employees).
 * - `operator`: an admin of the `OPS_ORG` organisation.
 * - `metrics`: `Authorization: Bearer <METRICS_TOKEN>`.
 */
export type Access = "public" | "bearer" | "admin" | "operator" | "metrics";

export interface ApiResponse {
  description: string;
  /** JSON body; omitted for empty responses (204) and non-JSON ones (set `contentType`). */
  schema?: z.ZodType;
  contentType?: string;
}

export interface ApiRoute {
  method: HttpMethod;
  /** Koa style, as mounted: `/api/v1/chat/sessions/:id`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** JSON body, or for `multipart` the form fields besides the file. */
  body?: z.ZodType;
  bodyType?: "json" | "multipart" | "form";
  /** Accepts an `Idempotency-Key` header (replays the first 2xx answer). */
  idempotent?: boolean;
  /** Counts against a `RATE_LIMIT_*` setting (`429 RATE_LIMITED`). */
  rateLimited?: boolean;
  responses: Record<number, ApiResponse>;
  /** Codes besides the ones implied by access, input, rate limits and idempotency. */
  errors?: ErrorCode[];
}

/** Keeps each declaration checked against ApiRoute without widening the list's type. */
export function defineRoutes(routes: ApiRoute[]): ApiRoute[] {
  return routes;
}
