/**
 * JWTs (HS256) carrying who the caller is: user id, org id and role. Every accepted token has a
 * bounded life: it must carry `exp` and `iat`, and exp − iat may not exceed JWT_MAX_TTL_SECONDS,
 * so a token minted by a careless issuer cannot stay valid for months.
 */
import { SignJWT, jwtVerify } from "jose";
import { z } from "zod";

export const principalSchema = z.object({
  userId: z.uuid(),
  orgId: z.uuid(),
  role: z.enum(["admin", "employee"]),
});
export type Principal = z.infer<typeof principalSchema>;

/** An identity provider's clock may run a little ahead of ours; `exp` gets no such grace. */
const IAT_SKEW_SECONDS = 5;

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
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(private readonly settings: TokenSettings) {
    this.key = new TextEncoder().encode(settings.secret);
  }

  /** `ttlSeconds`: the session's access tokens (ACCESS_TOKEN_TTL_SECONDS) live shorter than dev-login's. */
  async sign(principal: Principal, ttlSeconds = this.settings.ttlSeconds): Promise<string> {
    const jwt = new SignJWT({ org: principal.orgId, role: principal.role })
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
      return parsed.success ? { principal: parsed.data, expiresAt: exp * 1000 } : null;
    } catch {
      return null;
    }
  }
}
