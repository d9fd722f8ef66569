/**
 * Sign-in for local use. `dev-login` trades a seeded user's email for a token; it exists for
 * the embedded demo and is off unless DEV_LOGIN_ENABLED is set (config refuses it under
 * NODE_ENV=production). Because an email alone buys a token, attempts are rate limited per client
 * IP. Real deployments sign people in through their organisation's identity provider; API clients
 * may also send that provider's own access tokens, verified against its JWKS and mapped to a person
 * through an identity link (server/auth/provider-tokens.ts, docs/security.md).
 */
import type { Middleware } from "koa";
import { z } from "zod";
import { findUserByEmail, listSignInCandidates } from "../../db/queries/users";
import { unauthorized } from "../errors";
import { Refusal } from "../../lib/refusal";
import { demoUsersResponse, devLoginResponse } from "../openapi/responses";
import { defineRoute } from "./define-route";
import { perClientIp } from "../middleware/rate-limit";
import type { ServerDeps } from "../deps";

/** Enough for the demo organisation; a picker longer than this would not be read anyway. */
const DEMO_USERS_SHOWN = 100;

export const devLoginBody = z.strictObject({ email: z.email({ error: "email must be a valid email address" }) });

/** While dev-login is off these routes do not exist (404, before anything is read or counted). */
function devLoginOn(deps: ServerDeps, refusal: string): Middleware {
  return async (_ctx, next) => {
    if (!deps.config.auth.DEV_LOGIN_ENABLED) throw new Refusal("not_found", "NOT_FOUND", refusal);
    await next();
  };
}

export const authRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/auth/dev-login",
    tag: "auth",
    summary: "Trade a seeded user's email for a token (development only)",
    description: "Exists only while DEV_LOGIN_ENABLED is on (404 otherwise); rate limited per client IP.",
    access: "public",
    body: devLoginBody,
    rateLimited: true,
    responses: { 200: { description: "A token and the user it signs in.", schema: devLoginResponse } },
    errors: ["UNAUTHORIZED", "NOT_FOUND"],
    // Counted before the body is read and the user looked up, so guessing emails costs the same as using a known one.
    use: (deps) => [
      devLoginOn(deps, "dev-login is disabled (set DEV_LOGIN_ENABLED=true to enable it outside embedded mode)"),
      perClientIp(deps.redis, { bucket: "dev-login", limit: deps.config.rateLimits.RATE_LIMIT_DEV_LOGIN_PER_MINUTE, windowMs: 60_000 }),
    ],
    handler: async (ctx, { body }, deps) => {
      const user = await findUserByEmail(deps.db, body.email);
      if (!user) throw unauthorized("No user with that email");
      if (!user.is_active) throw unauthorized("This account has been deactivated");
      const token = await deps.tokens.sign({ userId: user.id, orgId: user.org_id, role: user.role });
      ctx.body = {
        token,
        user: { id: user.id, org_id: user.org_id, email: user.email, name: user.name, role: user.role, department: user.department, locale: user.locale },
      };
    },
  }),
  // The browser's sign-in page lists these; it exists only while an email alone buys a token.
  defineRoute({
    method: "get",
    path: "/api/v1/auth/demo-users",
    tag: "auth",
    summary: "Active users for a sign-in picker (development only)",
    description: "Admins first, at most 100. Exists only while DEV_LOGIN_ENABLED is on (404 otherwise).",
    access: "public",
    responses: { 200: { description: "The users.", schema: demoUsersResponse } },
    errors: ["NOT_FOUND"],
    use: (deps) => [devLoginOn(deps, "dev-login is disabled: sign in with a token from your identity provider")],
    handler: async (ctx, _input, deps) => {
      ctx.body = { users: await listSignInCandidates(deps.db, DEMO_USERS_SHOWN) };
    },
  }),
];
