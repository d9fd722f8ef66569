/**
 * The edge of `/scim/v2`: every answer is `application/scim+json` and every failure a SCIM error
 * (server/scim/errors.ts); the caller is an organisation's SCIM token (`Authorization: Bearer`,
 * 401 without a valid one), counted against SCIM_RATE_LIMIT_PER_MINUTE per token; a body is JSON
 * (`application/scim+json` or `application/json`, at most 1 MB: a group's full member list fits),
 * read here because the API's own body parser answers in the API's error format.
 */
import type { Context, Middleware, Next } from "koa";
import { findScimToken, touchScimToken } from "../../db/queries/scim-tokens";
import type { ScimActor } from "../../db/queries/scim-audit";
import { RateLimiter } from "../middleware/rate-limit";
import type { ServerDeps } from "../deps";
import { nulPath } from "../../lib/nul-text";
import { scimError, toScimFailure } from "./errors";
import { SCIM_BASE_PATH } from "./library";

export const SCIM_MAX_BODY_BYTES = 1024 * 1024;
export const SCIM_CONTENT_TYPE = "application/scim+json";

/** Who is calling: the organisation the token belongs to, and the token as the audit's actor. */
export interface ScimCaller {
  orgId: string;
  actor: ScimActor;
  /** Where this deployment's SCIM resources live, for meta.location: `https://host/scim/v2`. */
  baseUrl: string;
}

export function scimCallerOf(ctx: Context): ScimCaller {
  const caller = ctx.state.scim as ScimCaller | undefined;
  if (!caller) throw scimError(401, undefined, "A SCIM bearer token is required");
  return caller;
}

/** This deployment's SCIM base URL: under PUBLIC_URL when set, else the origin the request came to. */
export function scimBaseUrl(deps: Pick<ServerDeps, "config">, ctx: Context): string {
  return `${(deps.config.server.PUBLIC_URL || `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, "")}${SCIM_BASE_PATH}`;
}

/** Sends a SCIM resource or message with its status. */
export function sendScim(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = SCIM_CONTENT_TYPE;
  ctx.body = JSON.stringify(body);
}

function answerErrors(deps: ServerDeps): Middleware {
  const log = deps.log.child({ component: "scim" });
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      const failure = toScimFailure(caught, log);
      if (failure.status === 401) ctx.set("WWW-Authenticate", 'Bearer realm="scim"');
      if (failure.retryAfter !== undefined) ctx.set("Retry-After", String(failure.retryAfter));
      sendScim(ctx, failure.status, failure.body);
    }
  };
}

function authenticate(deps: ServerDeps): Middleware {
  const limiter = new RateLimiter(deps.redis);
  return async (ctx: Context, next: Next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("authorization"));
    const token = match?.[1] ? await findScimToken(deps.db, match[1]) : undefined;
    if (!token) throw scimError(401, undefined, "A valid SCIM bearer token is required: Authorization: Bearer <token> (Provisioning in the admin console)");
    await limiter.consume(token.id, { bucket: "scim", limit: deps.config.rateLimits.SCIM_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 });
    await touchScimToken(deps.db, token);
    ctx.state.scim = { orgId: token.org_id, actor: { tokenId: token.id, hint: token.hint }, baseUrl: scimBaseUrl(deps, ctx) } satisfies ScimCaller;
    await next();
  };
}

async function readBody(ctx: Context): Promise<string> {
  const declared = Number(ctx.get("content-length") || 0);
  if (declared > SCIM_MAX_BODY_BYTES) throw scimError(413, undefined, `The body is larger than ${SCIM_MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > SCIM_MAX_BODY_BYTES) throw scimError(413, undefined, `The body is larger than ${SCIM_MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (["POST", "PUT", "PATCH"].includes(ctx.method)) {
      if (!ctx.is(SCIM_CONTENT_TYPE, "application/json")) throw scimError(415, undefined, `Send the body as ${SCIM_CONTENT_TYPE} (or application/json)`);
      const text = await readBody(ctx);
      try {
        ctx.request.body = JSON.parse(text);
      } catch {
        throw scimError(400, "invalidSyntax", "The body is not valid JSON");
      }
      if (nulPath(ctx.request.body) !== undefined)
        throw scimError(400, "invalidValue", "The body contains a NUL character (\\u0000), which no attribute can hold");
    }
    await next();
  };
}

/** The middleware every SCIM route runs before its handler (discovery included: it is per token too). */
export function scimEdge(deps: ServerDeps): Middleware[] {
  return [answerErrors(deps), authenticate(deps), parseBody()];
}

/**
 * Around the router, for `/scim/...` only: a path no SCIM route has (`/scim/v2/Bulk`) or a method
 * a SCIM path does not take answers as a SCIM error too, not in the API's error format.
 */
export function scimFallback(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith("/scim/")) return next();
    try {
      await next();
    } catch (caught) {
      const status = (caught as { status?: number }).status;
      if (status !== 405 && status !== 501) throw caught;
      sendScim(ctx, 405, { schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "405", detail: `${ctx.method} is not supported on ${ctx.path}` });
      return;
    }
    if (ctx.status === 404 && ctx.body === undefined) {
      sendScim(ctx, 404, { schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "404", detail: `No SCIM endpoint ${ctx.path}` });
    }
  };
}
