/**
 * A sign-in between its start and the provider's callback. What the callback needs (the PKCE
 * verifier, the nonce, the provider, where to go after) is kept in Redis under the `state`, for
 * ten minutes and for one use only (GETDEL, so a replayed callback finds nothing, on any node).
 * It is also bound to the browser that started it: that browser holds a random value in a
 * short-lived HttpOnly cookie and Redis holds only its hash, so a callback URL opened in another
 * browser (a login CSRF, a leaked link) does not complete. The cookie is SameSite=Lax because the
 * callback arrives as a top-level navigation from the provider's site, where Strict would drop it.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Context } from "koa";
import { z } from "zod";
import { redisKey } from "../../../queues/keys";

export const PENDING_TTL_SECONDS = 600;
const TEST_TICKET_TTL_SECONDS = 300;
export const BINDING_COOKIE = "skillnet_sso";
const BINDING_PATH = "/api/v1/auth/oidc";
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

export const RETURN_PATHS = ["/", "/admin"] as const;

const pendingSchema = z.object({
  providerId: z.uuid(),
  verifier: z.string().min(43),
  nonce: z.string().min(16),
  returnTo: z.enum(RETURN_PATHS),
  /** `test`: the admin's "test sign-in"; it reports what came back and signs nobody in. */
  mode: z.enum(["sign-in", "test"]),
  bindingHash: z.string().length(64),
  redirectUri: z.url(),
});
export type PendingSignIn = z.infer<typeof pendingSchema>;

const testTicketSchema = z.object({ providerId: z.uuid(), actorId: z.uuid() });

const stateKey = (state: string) => redisKey("ssoState", false, { state });
const ticketKey = (ticket: string) => redisKey("ssoTestTicket", false, { ticket });
const hashOf = (value: string) => createHash("sha256").update(value).digest("hex");

export class PendingSignIns {
  constructor(private readonly redis: Redis) {}

  /** Keeps the sign-in under `state` and gives the browser its half of the binding. */
  async begin(ctx: Context, state: string, pending: Omit<PendingSignIn, "bindingHash">): Promise<void> {
    const binding = randomBytes(32).toString("base64url");
    const record: PendingSignIn = { ...pending, bindingHash: hashOf(binding) };
    await this.redis.set(stateKey(state), JSON.stringify(record), "EX", PENDING_TTL_SECONDS);
    ctx.cookies.set(BINDING_COOKIE, binding, {
      httpOnly: true,
      sameSite: "lax",
      secure: ctx.secure,
      path: BINDING_PATH,
      maxAge: PENDING_TTL_SECONDS * 1000,
      overwrite: true,
    });
  }

  /** The sign-in `state` names, once, if this browser started it; null otherwise. The binding cookie is cleared either way. */
  async finish(ctx: Context, state: string): Promise<PendingSignIn | null> {
    const binding = ctx.cookies.get(BINDING_COOKIE);
    ctx.cookies.set(BINDING_COOKIE, null, { path: BINDING_PATH, overwrite: true });
    if (!TOKEN.test(state)) return null;
    const raw = await this.redis.getdel(stateKey(state));
    if (!raw || !binding) return null;
    const parsed = pendingSchema.safeParse(JSON.parse(raw));
    return parsed.success && parsed.data.bindingHash === hashOf(binding) ? parsed.data : null;
  }

  /** A single-use ticket that makes the next start of this provider a test run (from the console's button). */
  async issueTestTicket(providerId: string, actorId: string): Promise<string> {
    const ticket = randomBytes(24).toString("base64url");
    await this.redis.set(ticketKey(ticket), JSON.stringify({ providerId, actorId }), "EX", TEST_TICKET_TTL_SECONDS);
    return ticket;
  }

  async redeemTestTicket(ticket: string, providerId: string): Promise<boolean> {
    if (!TOKEN.test(ticket)) return false;
    const raw = await this.redis.getdel(ticketKey(ticket));
    const parsed = raw ? testTicketSchema.safeParse(JSON.parse(raw)) : undefined;
    return parsed?.success === true && parsed.data.providerId === providerId;
  }
}
