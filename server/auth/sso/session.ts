/**
 * The browser's session after a single sign-on: a refresh token in an HttpOnly, SameSite=Strict
 * cookie scoped to /api/v1/auth (Secure over HTTPS), which mints our own short-lived access
 * tokens and is replaced on every use (db/queries/refresh-tokens.ts: a spent token presented
 * again revokes its family). The access token lives only in the page's memory.
 *
 * Refresh and sign-out change state from a cookie alone, so they need proof the request comes
 * from our own pages: an `X-Requested-With` header (a cross-site form cannot set one, and a
 * cross-site fetch with one needs a CORS preflight we never grant), and an `Origin`, when sent,
 * that is our own.
 */
import type { Context } from "koa";
import { issueRefreshToken, type IssuedRefreshToken } from "../../../db/queries/refresh-tokens";
import { Refusal } from "../../../lib/refusal";
import type { ServerDeps } from "../../deps";

export const REFRESH_COOKIE = "skillnet_refresh";
export const REFRESH_PATH = "/api/v1/auth";
export const CSRF_HEADER = "X-Requested-With";
/**
 * Readable by the page (not HttpOnly) and holding nothing secret: it only says a refresh cookie
 * was set, so a page load without a session does not ask for a refresh it would be refused.
 */
export const SIGNED_IN_MARKER = "skillnet_signed_in";

export function setRefreshCookie(ctx: Context, issued: IssuedRefreshToken): void {
  ctx.cookies.set(REFRESH_COOKIE, issued.token, {
    httpOnly: true,
    sameSite: "strict",
    secure: ctx.secure,
    path: REFRESH_PATH,
    expires: issued.expiresAt,
    overwrite: true,
  });
  ctx.cookies.set(SIGNED_IN_MARKER, "1", { httpOnly: false, sameSite: "lax", secure: ctx.secure, path: "/", expires: issued.expiresAt, overwrite: true });
}

export function clearRefreshCookie(ctx: Context): void {
  ctx.cookies.set(REFRESH_COOKIE, null, { path: REFRESH_PATH, sameSite: "strict", secure: ctx.secure, overwrite: true });
  ctx.cookies.set(SIGNED_IN_MARKER, null, { path: "/", sameSite: "lax", secure: ctx.secure, overwrite: true });
}

export async function startSession(ctx: Context, deps: ServerDeps, grant: { orgId: string; userId: string; providerId: string | null }): Promise<void> {
  setRefreshCookie(ctx, await issueRefreshToken(deps.db, { ...grant, ttlSeconds: deps.config.auth.REFRESH_TOKEN_TTL_SECONDS }));
}

/** The origin our pages are served from: PUBLIC_URL when set, else the request's own. */
export function publicOrigin(ctx: Context, deps: Pick<ServerDeps, "config">): string {
  // Koa's ctx.origin is the Origin header; this is the request's own (proxy headers only under TRUST_PROXY).
  return deps.config.server.PUBLIC_URL ? new URL(deps.config.server.PUBLIC_URL).origin : `${ctx.protocol}://${ctx.host}`;
}

export function requireSameSite(ctx: Context, deps: Pick<ServerDeps, "config">): void {
  if (!ctx.get(CSRF_HEADER)) throw new Refusal("forbidden", "CSRF_CHECK_FAILED", `Send the ${CSRF_HEADER} header: this endpoint acts on a cookie`);
  const origin = ctx.get("origin");
  if (origin && origin !== publicOrigin(ctx, deps) && origin !== `${ctx.protocol}://${ctx.host}`)
    throw new Refusal("forbidden", "CSRF_CHECK_FAILED", "This request comes from another site");
}
