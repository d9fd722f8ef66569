/**
 * DNS rebinding: a page on an attacker's domain can make a browser send requests to a server on
 * 127.0.0.1 once its name resolves there, and read the answers (the origin is the attacker's
 * own). While dev-login is on, an email alone buys a token, so such a page could sign in as
 * anyone. The browser still sends the attacker's name as `Host`; so, while dev-login is on, only
 * the server's own names are served: loopback names, the address it is bound to, and
 * PUBLIC_URL's host. Off dev-login, tokens come from elsewhere and nothing is refused here.
 */
import type { Middleware } from "koa";
import { canonicalHost, isLoopbackHost } from "../../lib/loopback";
import { Refusal } from "../../lib/refusal";

const ANY_ADDRESS = new Set(["0.0.0.0", "::", ""]);

/**
 * The host part of a Host header (`name`, `name:port`, `[v6]:port`), canonical: lower-cased,
 * without port, brackets or trailing dot. A header that is not one of those shapes (a bare IPv6
 * address, a userinfo `@`) yields "" and is served by no name.
 */
export function hostnameOf(header: string): string {
  const value = header.trim();
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:@/[\]]+)(?::\d{0,5})?$/.exec(value);
  return match ? canonicalHost(match[1]!) : "";
}

export function allowedHosts(server: { HOST: string; PUBLIC_URL?: string | undefined }): (hostname: string) => boolean {
  const named = new Set<string>();
  if (!ANY_ADDRESS.has(server.HOST)) named.add(canonicalHost(server.HOST));
  if (server.PUBLIC_URL) named.add(hostnameOf(new URL(server.PUBLIC_URL).host));
  return (hostname) => hostname !== "" && (isLoopbackHost(hostname) || named.has(hostname));
}

export function hostGuard(config: { auth: { DEV_LOGIN_ENABLED: boolean }; server: { HOST: string; PUBLIC_URL?: string | undefined } }): Middleware {
  if (!config.auth.DEV_LOGIN_ENABLED) return (_ctx, next) => next();
  const allowed = allowedHosts(config.server);
  return async (ctx, next) => {
    // Koa's ctx.host would read X-Forwarded-Host behind a proxy; the browser's own Host header is what rebinding forges.
    const hostname = hostnameOf(ctx.get("host"));
    if (!allowed(hostname)) {
      throw new Refusal(
        "wrong_host",
        "HOST_NOT_ALLOWED",
        "This server answers only to its own names while dev-login is on; open it by localhost, 127.0.0.1 or PUBLIC_URL.",
      );
    }
    await next();
  };
}
