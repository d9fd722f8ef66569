/**
 * JWTs carrying who the caller is. Our own (HS256, `iss` = JWT_ISSUER) carry user id, org id and
 * role; any other `iss` is an identity provider's token, checked by ProviderTokens against that
 * provider's JWKS and mapped to a person through an identity link. Every accepted token has a
 * bounded life: it must carry `exp` and `iat`, and exp − iat may not exceed JWT_MAX_TTL_SECONDS,
 * so a token minted by a careless issuer cannot stay valid for months.
 */
import { SignJWT, jwtVerify } from "jose";
import { z } from "zod";
import type { ProviderFetchCounts } from "./provider-keys";
import type { ProviderIdentity, ProviderTokens } from "./provider-tokens";
import { IAT_SKEW_SECONDS, routeToken, type TokenRefusalCode } from "./token-claims";

export const principalSchema = z.object({
  userId: z.uuid(),
  orgId: z.uuid(),
  role: z.enum(["admin", "employee"]),
});
export type Principal = z.infer<typeof principalSchema>;

export interface TokenSettings {
  secret: string;
  /** Lifetime of the tokens this service signs (dev-login). */
  ttlSeconds: number;
  /** Longest exp − iat accepted from any issuer. */
  maxTtlSeconds: number;
  issuer: string;
  /** When set, signed tokens carry it and verified tokens must. */
  audience?: string;
}

/** A verified caller and the moment (epoch ms) their token stops being valid. */
export interface VerifiedToken {
  principal: Principal;
  expiresAt: number;
  /**
   * Set for an identity provider's token: the link it was mapped through. Its `principal.role` is
   * a placeholder until the database step (`confirmOrRefuse`, server/auth/middleware.ts) reads the stored one.
   */
  identity?: ProviderIdentity;
  /**
   * The browser sign-in (refresh family) our token was minted for (`sid`), so ending that sign-in
   * (sign-out, a reused refresh token) can cut the sockets opened with it; dev-login tokens have none.
   */
  signInId?: string;
}

/** A token's signature step: the caller, or the code it is refused with (`401`). */
export type TokenCheck = { ok: true; token: VerifiedToken } | { ok: false; code: TokenRefusalCode };

export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    private readonly settings: TokenSettings,
    /** Without it (tests, tools), only our own tokens are accepted. */
    private readonly providers?: ProviderTokens,
  ) {
    this.key = new TextEncoder().encode(settings.secret);
  }

  /**
   * `ttlSeconds`: the session's access tokens (ACCESS_TOKEN_TTL_SECONDS) live shorter than dev-login's.
   * `signInId`: the refresh family a browser session's token comes from (the `sid` claim).
   */
  async sign(principal: Principal, ttlSeconds = this.settings.ttlSeconds, signInId?: string): Promise<string> {
    const jwt = new SignJWT({ org: principal.orgId, role: principal.role, ...(signInId ? { sid: signInId } : {}) })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(principal.userId)
      .setIssuer(this.settings.issuer)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`);
    if (this.settings.audience) jwt.setAudience(this.settings.audience);
    return jwt.sign(this.key);
  }

  /** The caller, or null for any token that is malformed, expired, forged, unbounded or incomplete. */
  async verify(token: string): Promise<Principal | null> {
    return (await this.verifyWithExpiry(token))?.principal ?? null;
  }

  /** Like `verify`, plus the expiry, so long-lived connections can be cut when the token runs out. */
  async verifyWithExpiry(token: string): Promise<VerifiedToken | null> {
    const check = await this.check(token);
    return check.ok ? check.token : null;
  }

  /**
   * The signature step, with the reason for a refusal. Our own tokens are refused as
   * `UNAUTHORIZED` as they always were; a provider's with a code saying what failed.
   */
  async check(token: string): Promise<TokenCheck> {
    const route = routeToken(token, this.settings.issuer);
    if (route.to === "provider" && this.providers) {
      const checked = await this.providers.verify(token, route);
      if (!checked.ok) return checked;
      const { identity } = checked;
      // The stored role replaces this placeholder in confirmOrRefuse, before anything reads it.
      const principal: Principal = { userId: identity.userId, orgId: identity.orgId, role: "employee" };
      return { ok: true, token: { principal, expiresAt: identity.expiresAt, identity } };
    }
    const own = await this.verifyOwn(token);
    return own ? { ok: true, token: own } : { ok: false, code: "UNAUTHORIZED" };
  }

  /** The database step for a provider's token: its link and provider still hold (null when they do, or for our own tokens). */
  async confirmIdentity(verified: VerifiedToken): Promise<TokenRefusalCode | null> {
    if (!verified.identity) return null;
    return this.providers ? this.providers.confirm(verified.identity) : "TOKEN_ISSUER_UNKNOWN";
  }

  /** How often this node fetched a provider's discovery document and JWKS. */
  providerFetchCounts(issuer: string): ProviderFetchCounts {
    return this.providers?.fetchCounts(issuer) ?? { discovery: 0, jwks: 0, failures: 0 };
  }

  private async verifyOwn(token: string): Promise<VerifiedToken | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: this.settings.issuer,
        ...(this.settings.audience ? { audience: this.settings.audience } : {}),
        requiredClaims: ["exp", "iat", "sub"],
      });
      const { exp, iat } = payload as { exp: number; iat: number };
      if (exp - iat > this.settings.maxTtlSeconds) return null;
      // An `iat` in the future would make a long-lived token look short.
      if (iat > Date.now() / 1000 + IAT_SKEW_SECONDS) return null;
      const parsed = principalSchema.safeParse({ userId: payload.sub, orgId: payload.org, role: payload.role });
      if (!parsed.success) return null;
      const signInId = z.uuid().safeParse(payload.sid);
      return { principal: parsed.data, expiresAt: exp * 1000, ...(signInId.success ? { signInId: signInId.data } : {}) };
    } catch {
      return null;
    }
  }
}
