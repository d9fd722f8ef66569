/**
 * Sign-in for local use. `dev-login` trades a seeded user's email for a token; it exists for
 * the embedded demo and is off unless DEV_LOGIN_ENABLED is set (config refuses it under
 * NODE_ENV=production). Because an email alone buys a token, attempts are rate limited per client
 * IP. Production deployments sign tokens in their identity provider with the same claims and
 * JWT_SECRET.
 */
import Router from "@koa/router";
import { z } from "zod";
import { findUserByEmail, listSignInCandidates } from "../../db/queries/users";
import { fromZod, unauthorized } from "../errors";
import { Refusal } from "../../lib/refusal";
import { RateLimiter } from "../middleware/rate-limit";
import type { ServerDeps } from "../deps";

/** Enough for the demo organisation; a picker longer than this would not be read anyway. */
const DEMO_USERS_SHOWN = 100;

export const devLoginBody = z.strictObject({ email: z.email({ error: "email must be a valid email address" }) });

export function authRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/auth" });
  const limiter = new RateLimiter(deps.redis);
  const perIp = { bucket: "dev-login", limit: deps.config.RATE_LIMIT_DEV_LOGIN_PER_MINUTE, windowMs: 60_000 };

  router.post("/dev-login", async (ctx) => {
    if (!deps.config.DEV_LOGIN_ENABLED) {
      throw new Refusal("not_found", "NOT_FOUND", "dev-login is disabled (set DEV_LOGIN_ENABLED=true to enable it outside embedded mode)");
    }
    // Counted before the lookup, so guessing emails costs the same as using a known one.
    await limiter.consume(ctx.ip, perIp);
    const parsed = devLoginBody.safeParse(ctx.request.body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    const user = await findUserByEmail(deps.db, parsed.data.email);
    if (!user) throw unauthorized("No user with that email");
    if (!user.is_active) throw unauthorized("This account has been deactivated");
    const token = await deps.tokens.sign({ userId: user.id, orgId: user.org_id, role: user.role });
    ctx.body = {
      token,
      user: { id: user.id, org_id: user.org_id, email: user.email, name: user.name, role: user.role, department: user.department, locale: user.locale },
    };
  });

  // The browser's sign-in page lists these; it exists only while an email alone buys a token.
  router.get("/demo-users", async (ctx) => {
    if (!deps.config.DEV_LOGIN_ENABLED) throw new Refusal("not_found", "NOT_FOUND", "dev-login is disabled: sign in with a token from your identity provider");
    ctx.body = { users: await listSignInCandidates(deps.db, DEMO_USERS_SHOWN) };
  });

  return router;
}
