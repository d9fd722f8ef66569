/**
 * A route is written once: `defineRoute` takes what it promises (method, path, who may call it,
 * the zod schemas of its input, its answers and error codes, the words a reader sees) together
 * with its handler. `mountRoutes` registers the definitions with @koa/router, checking access
 * and parsing input at the edge; server/openapi/document.ts builds the OpenAPI document from the
 * same definitions, so the document cannot describe a route or a request the server does not have.
 */
import { bodyParser } from "@koa/bodyparser";
import Router, { type RouterContext } from "@koa/router";
import type { Context, Middleware } from "koa";
import type { z } from "zod";
import { requireIntegrationKey } from "../auth/integration-key";
import { requireAuth, requireRole } from "../auth/middleware";
import type { IntegrationScope } from "../../lib/integration-scopes";
import { operatorEndpointMessage, requireOperator } from "../auth/operator";
import type { ServerDeps } from "../deps";
import type { ErrorCode } from "../openapi/error-codes";
import { parseInput } from "../validation";
import { Refusal } from "../../lib/refusal";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * - `public`: no credentials.
 * - `bearer`: any signed-in user (`Authorization: Bearer <JWT>`).
 * - `admin`: an admin's token (`403 FORBIDDEN` for employees).
 * - `operator`: an admin of the `OPS_ORG` organisation.
 * - `metrics`: `Authorization: Bearer <METRICS_TOKEN>` (checked by the handler: the rule depends on config).
 * - `scim`: `Authorization: Bearer <an organisation's SCIM token>`, checked by the SCIM edge in `use`
 *   (server/scim/request.ts), which also answers every error of the route as a SCIM error.
 * - `integration`: `Authorization: Bearer <an organisation's integration key>` holding the route's
 *   `scope` (server/auth/integration-key.ts); the key names the organisation.
 */
export type Access = "public" | "bearer" | "admin" | "operator" | "metrics" | "scim" | "integration";

export interface ApiResponse {
  description: string;
  /** JSON body; omitted for empty responses (204) and non-JSON ones (set `contentType`; with a schema, the JSON media type, e.g. application/scim+json). */
  schema?: z.ZodType;
  contentType?: string;
}

/** What a route promises: everything the OpenAPI document says about it. */
export interface RouteSpec {
  method: HttpMethod;
  /** Koa style, as mounted: `/api/v1/chat/sessions/:id`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** The integration key scope the route needs (`access: "integration"` only, where it is required). */
  scope?: IntegrationScope;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** A JSON body, parsed before the handler runs. */
  body?: z.ZodType;
  /** A form body the handler reads itself (a multipart upload's fields besides the file, or a URL-encoded form). */
  form?: { type: "multipart" | "urlencoded"; fields: z.ZodObject };
  /**
   * Integration routes read their own bodies (server/app.ts leaves `/api/v1/integrations/` alone):
   * a JSON body up to `jsonLimitBytes` (64 kB when unset), or, with `rawBody`, the request stream
   * itself, read by the handler (a bulk import), in one of `contentTypes`.
   */
  jsonLimitBytes?: number;
  rawBody?: { contentTypes: string[]; description: string };
  /** Accepts an `Idempotency-Key` header (replays the first 2xx answer). */
  idempotent?: boolean;
  /** Counts against a `RATE_LIMIT_*` setting (`429 RATE_LIMITED`). */
  rateLimited?: boolean;
  responses: Record<number, ApiResponse>;
  /** Codes besides the ones implied by access, input, rate limits and idempotency. */
  errors?: ErrorCode[];
}

/** A defined route: its promise, and the middleware that keeps it. */
export interface ApiRoute extends RouteSpec {
  middleware(deps: ServerDeps): Middleware[];
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

export interface RouteDefinition<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, B extends z.ZodType | undefined>
  extends Omit<RouteSpec, "params" | "query" | "body"> {
  params?: P;
  query?: Q;
  body?: B;
  /** Middleware between the access check and input parsing (rate limits, idempotency, allowance), built once per app. */
  use?: (deps: ServerDeps) => Middleware[];
  handler: (ctx: Context, input: RouteInput<P, Q, B>, deps: ServerDeps) => Promise<void> | void;
}

/** Where the app's own JSON parser stops: routes under it parse their bodies themselves (integrations send large ones). */
export const OWN_BODY_PREFIX = "/api/v1/integrations/";
export const JSON_LIMIT_BYTES = 64 * 1024;

/** An integration route's JSON body parser, after its key was checked: nobody's large body is read before that. */
function ownJsonBody({ path, jsonLimitBytes, rawBody }: Pick<RouteSpec, "path" | "jsonLimitBytes" | "rawBody">): Middleware[] {
  if (!path.startsWith(OWN_BODY_PREFIX) || rawBody) return [];
  const limit = jsonLimitBytes ?? JSON_LIMIT_BYTES;
  return [
    bodyParser({
      enableTypes: ["json"],
      jsonLimit: limit,
      onError: (error) => {
        const status = (error as { status?: number }).status;
        if (status === 413)
          throw new Refusal("too_large", "PAYLOAD_TOO_LARGE", `The JSON body is larger than this endpoint's ${limit} bytes.`, { limit_bytes: limit });
        throw Object.assign(error, { status: status ?? 400 });
      },
    }),
  ];
}

function accessCheck({ access, scope, path }: Pick<RouteSpec, "access" | "scope" | "path">, deps: ServerDeps): Middleware[] {
  if ((access === "integration") !== (scope !== undefined)) throw new Error(`${path}: a scope goes with access "integration", and only with it`);
  switch (access) {
    case "integration":
      return [requireIntegrationKey(deps, scope!)];
    case "public":
    case "metrics":
    case "scim":
      return [];
    case "bearer":
      return [requireAuth(deps)];
    case "admin":
      return [requireAuth(deps), requireRole("admin")];
    case "operator":
      return [requireAuth(deps), requireRole("admin"), requireOperator(deps, operatorEndpointMessage)];
  }
}

export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(definition: RouteDefinition<P, Q, B>): ApiRoute {
  const { use, handler, ...spec } = definition;
  return {
    ...spec,
    middleware: (deps) => [
      ...accessCheck(spec, deps),
      ...ownJsonBody(spec),
      ...(use?.(deps) ?? []),
      async (ctx) => {
        // Path first, then query, then body: the order a reader checks a request in.
        const input = {
          params: spec.params && parseInput(spec.params, (ctx as RouterContext).params, "params"),
          query: spec.query && parseInput(spec.query, ctx.query, "query"),
          body: spec.body && parseInput(spec.body, ctx.request.body ?? {}, "body"),
        } as RouteInput<P, Q, B>;
        await handler(ctx, input, deps);
      },
    ],
  };
}

/** One router for the given definitions; unknown methods on a known path answer 405. */
export function mountRoutes(deps: ServerDeps, routes: readonly ApiRoute[]): Router {
  const router = new Router();
  for (const route of routes) router.register(route.path, [route.method], route.middleware(deps));
  return router;
}
