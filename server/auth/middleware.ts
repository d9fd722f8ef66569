/** Koa middleware that turns a bearer token (or the Bull Board cookie) into `ctx.state.principal`. */
import type { Context, Middleware, Next } from "koa";
import { forbidden, unauthorized } from "../errors";
import type { Principal, TokenService } from "./tokens";

export const SESSION_COOKIE = "skillnet_token";

export interface AuthState {
  principal: Principal;
}

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get("authorization");
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match?.[1]?.trim() || undefined;
}

export function requireAuth(tokens: TokenService, { allowCookie = false } = {}): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx) ?? (allowCookie ? ctx.cookies.get(SESSION_COOKIE) : undefined);
    if (!token) throw unauthorized("Missing bearer token: send Authorization: Bearer <token>");
    const principal = await tokens.verify(token);
    if (!principal) throw unauthorized("Invalid or expired token");
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
