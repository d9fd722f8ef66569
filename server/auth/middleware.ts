/** Koa middleware that turns a bearer token (or the Bull Board cookie) into `ctx.state.principal`. */
import type { Context, Middleware, Next } from "koa";
import { forbidden, unauthorized } from "../errors";
import { Refusal } from "../../lib/refusal";
import { findUser } from "../../db/queries/users";
import type { Db } from "../../db/knex";
import type { Principal, TokenCheck, TokenService, VerifiedToken } from "./tokens";
import { TOKEN_REFUSAL_MESSAGES, type TokenRefusalCode } from "./token-claims";

type AuthDeps = { tokens: TokenService; db: Db };

/** A refused token as a `401`: the code says what failed (never the token itself). */
export const tokenRefused = (code: TokenRefusalCode): Refusal => new Refusal("unauthenticated", code, TOKEN_REFUSAL_MESSAGES[code]);

export const SESSION_COOKIE = "skillnet_token";

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get("authorization");
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match?.[1]?.trim() || undefined;
}

/**
 * The caller behind a token, as the database knows them now: a token for a deleted user is
 * refused, so is one for a deactivated account, and a role changed since the token was signed
 * takes effect at once.
 */
export async function authenticate(deps: AuthDeps, token: string): Promise<Principal | null> {
  return (await authenticateWithExpiry(deps, token))?.principal ?? null;
}

/** `authenticate`, plus when the token runs out (for connections that outlive a request). */
export async function authenticateWithExpiry(deps: AuthDeps, token: string): Promise<VerifiedToken | null> {
  const checked = await authenticateOrRefuse(deps, token);
  return checked.ok ? checked.token : null;
}

/** `authenticateWithExpiry`, with the code a refused token gets (`UNAUTHORIZED` for our own, a specific one for a provider's). */
export async function authenticateOrRefuse(deps: AuthDeps, token: string): Promise<TokenCheck> {
  const signed = await deps.tokens.check(token);
  return signed.ok ? confirmOrRefuse(deps, signed.token) : signed;
}

/**
 * The second half of `authenticateOrRefuse`, for callers that check a limit between the
 * signature (no I/O) and the database read: the account must still exist and be active, and
 * its role is the one stored now; a provider's token must still be linked through an enabled
 * provider.
 */
export async function confirmOrRefuse({ tokens, db }: AuthDeps, verified: VerifiedToken): Promise<TokenCheck> {
  const claimed = verified.principal;
  const [user, unlinked] = await Promise.all([findUser(db, claimed.orgId, claimed.userId), tokens.confirmIdentity(verified)]);
  if (unlinked) return { ok: false, code: unlinked };
  // Our own tokens keep today's single answer; a provider's says the account is the problem.
  if (!user?.is_active) return { ok: false, code: verified.identity ? "ACCOUNT_INACTIVE" : "UNAUTHORIZED" };
  return { ok: true, token: { ...verified, principal: { ...claimed, role: user.role } } };
}

export function requireAuth(deps: AuthDeps, { allowCookie = false } = {}): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx) ?? (allowCookie ? ctx.cookies.get(SESSION_COOKIE) : undefined);
    if (!token) throw unauthorized("Missing bearer token: send Authorization: Bearer <token>");
    const checked = await authenticateOrRefuse(deps, token);
    if (!checked.ok) throw tokenRefused(checked.code);
    ctx.state.principal = checked.token.principal;
    await next();
  };
}

export function requireRole(role: Principal["role"]): Middleware {
  return async (ctx: Context, next: Next) => {
    const principal = ctx.state.principal as Principal | undefined;
    if (!principal) throw unauthorized();
    if (principal.role !== role) throw forbidden(`This endpoint is for ${role}s only`);
    await next();
  };
}

export function principalOf(ctx: Context): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  if (!principal) throw unauthorized();
  return principal;
}
