/** Koa middleware that turns a bearer token (or the Bull Board cookie) into `ctx.state.principal`. */
import type { Context, Middleware, Next } from "koa";
import { forbidden, unauthorized } from "../errors";
import { findUser } from "../../db/queries/users";
import type { Db } from "../../db/knex";
import type { Principal, TokenService, VerifiedToken } from "./tokens";

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
export async function authenticate(deps: { tokens: TokenService; db: Db }, token: string): Promise<Principal | null> {
  return (await authenticateWithExpiry(deps, token))?.principal ?? null;
}

/** `authenticate`, plus when the token runs out (for connections that outlive a request). */
export async function authenticateWithExpiry({ tokens, db }: { tokens: TokenService; db: Db }, token: string): Promise<VerifiedToken | null> {
  const verified = await tokens.verifyWithExpiry(token);
  return verified ? confirmWithDatabase(db, verified) : null;
}

/**
 * The second half of `authenticateWithExpiry`, for callers that check a limit between the
 * signature (no I/O) and the database read: the account must still exist and be active, and
 * its role is the one stored now.
 */
export async function confirmWithDatabase(db: Db, verified: VerifiedToken): Promise<VerifiedToken | null> {
  const claimed = verified.principal;
  const user = await findUser(db, claimed.orgId, claimed.userId);
  return user?.is_active ? { principal: { ...claimed, role: user.role }, expiresAt: verified.expiresAt } : null;
}

export function requireAuth(deps: { tokens: TokenService; db: Db }, { allowCookie = false } = {}): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx) ?? (allowCookie ? ctx.cookies.get(SESSION_COOKIE) : undefined);
    if (!token) throw unauthorized("Missing bearer token: send Authorization: Bearer <token>");
    const principal = await authenticate(deps, token);
    if (!principal) throw unauthorized("Invalid or expired token, or the account no longer exists");
    ctx.state.principal = principal;
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
