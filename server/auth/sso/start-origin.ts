/**
 * A sign-in starts only from our own pages (login CSRF, review F9). Another site that navigates a
 * visitor's browser to `…/start` would otherwise run a sign-in with a provider of its choosing (a
 * tenant admin's own, approving without a prompt) and leave the visitor signed in to the
 * attacker's account, where what they then type is the attacker's to read.
 *
 * Browsers say where a navigation comes from in `Sec-Fetch-Site` (Chromium, Firefox, Safari
 * 16.4+): `same-origin` (our sign-in page, the console's test link) and `none` (a typed URL or a
 * bookmark) may start; `cross-site` and `same-site` (a sibling subdomain) may not. A browser that
 * does not send it is judged by `Origin`, then `Referer`: another origin is refused. A request
 * with none of them (curl, a script) carries no visitor's cookies, so there is nothing to forge.
 */
import type { Context } from "koa";
import { publicOrigin } from "./session";
import type { ServerDeps } from "../../deps";

export function startedFromOurPages(ctx: Context, deps: Pick<ServerDeps, "config">): boolean {
  const site = ctx.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
  const ours = new Set([publicOrigin(ctx, deps), `${ctx.protocol}://${ctx.host}`]);
  const origin = ctx.get("origin");
  if (origin) return ours.has(origin);
  const referer = ctx.get("referer");
  if (!referer) return true;
  try {
    return ours.has(new URL(referer).origin);
  } catch {
    return false;
  }
}
