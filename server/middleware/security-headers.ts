/**
 * Browser-facing hardening headers on every response, set before anything else runs so errors
 * carry them too. The API's JSON gets `nosniff` (a browser never runs it as script or HTML) and a
 * CSP that allows nothing and no framing; Bull Board and its sign-in page get a CSP that fits the
 * board's own bundle (the web client's pages set a stricter one of their own, server/web.ts).
 * HSTS only on a request that came over HTTPS: Koa's `ctx.secure` reads `X-Forwarded-Proto`
 * only when the app trusts its proxy (TRUST_PROXY), so a client cannot switch it on over HTTP.
 */
import type { Middleware } from "koa";
import { BULL_BOARD_PATH, LOGIN_PATH } from "../bull-board-sign-in";

/** JSON, metrics and errors: nothing to load, nothing to frame. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Bull Board's bundle: scripts and its stylesheet from this origin, inline style attributes
 * (React), its Google font, XHR back to its own API. The sign-in page needs only its form.
 */
const BOARD_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline' https://fonts.googleapis.com",
  "font-src 'self' https://fonts.gstatic.com data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");

const isBoardPage = (path: string): boolean => path === LOGIN_PATH || path === BULL_BOARD_PATH || path.startsWith(`${BULL_BOARD_PATH}/`);

export function securityHeaders(server: { HSTS_MAX_AGE_SECONDS: number }): Middleware {
  return async (ctx, next) => {
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("X-Frame-Options", "DENY");
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Content-Security-Policy", isBoardPage(ctx.path) ? BOARD_POLICY : API_POLICY);
    if (ctx.secure && server.HSTS_MAX_AGE_SECONDS > 0) ctx.set("Strict-Transport-Security", `max-age=${server.HSTS_MAX_AGE_SECONDS}`);
    await next();
  };
}
