/**
 * Access tokens signed by an organisation's identity provider (Entra ID, Okta, Google, Keycloak…)
 * accepted at the API and the socket handshake, beside our own HS256 tokens. What is checked,
 * in this order, cheapest first (docs/security.md, "Identity providers' tokens"):
 *
 * 1. the algorithm is RS256, ES256 or EdDSA (no HS*, no `none`: algorithm confusion);
 * 2. an enabled provider has the token's issuer (from memory, ProviderDirectory);
 * 3. the signature, against that issuer's JWKS (cached, refetched at a bounded rate, ProviderKeys),
 *    with `iss`, `aud` (the provider's api_audience, else its client id), `exp`, `iat` and `sub`;
 * 4. the life bound every token has (exp − iat ≤ JWT_MAX_TTL_SECONDS, iat not in the future);
 * 5. `iss` + `sub` are linked to a person (identity_links), through a provider whose audience the
 *    token carries — the organisation comes from the link, never from a claim; where that audience
 *    is the provider's client id (no `api_audience`), the token must be an access token (token-claims.ts
 *    isAccessToken), since an ID token issued to our client carries that same `aud`.
 *
 * `verify` does 1–5 (the link read is cached briefly, so the socket handshake can rate-limit per
 * user before the database); `confirm` re-reads the link and the provider, for the database step.
 * No token, signature or claim set is logged: only the issuer, kid and reason.
 */
import { type JWTHeaderParameters, type JWTPayload, jwtVerify } from "jose";
import type { Logger } from "pino";
import { findIdentityLink, findIdentityProvider } from "../../db/queries/identity";
import type { Db } from "../../db/knex";
import type { OutboundClient } from "../../lib/outbound/client";
import { LRUCache } from "lru-cache";
import { ProviderDirectory } from "./provider-directory";
import { type ProviderFetchCounts, ProviderKeys } from "./provider-keys";
import {
  audienceIncludes,
  isAccessToken,
  isProviderAlgorithm,
  lifetimeRefusal,
  PROVIDER_ALGORITHMS,
  refusalOfJoseError,
  type TokenRefusalCode,
} from "./token-claims";

export interface ProviderTokenSettings {
  maxTtlSeconds: number;
  httpTimeoutMs: number;
  jwksCooldownMs: number;
  jwksMaxAgeMs: number;
  /** The outbound client every JWKS and discovery fetch goes through. */
  http: Pick<OutboundClient, "request">;
}

/** Who a provider's token speaks for, before the database confirms it. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  linkId: string;
  providerId: string;
  orgId: string;
  userId: string;
  /** Epoch ms of `exp`. */
  expiresAt: number;
}

export type ProviderCheck = { ok: true; identity: ProviderIdentity } | { ok: false; code: TokenRefusalCode };

interface CachedLink {
  id: string;
  orgId: string;
  userId: string;
  providerId: string;
}

const refused = (code: TokenRefusalCode): ProviderCheck => ({ ok: false, code });

const clip = (text: string | undefined): string | undefined => (text && text.length > 200 ? `${text.slice(0, 200)}…` : text);

export class ProviderTokens {
  private readonly directory: ProviderDirectory;
  private readonly keys: ProviderKeys;
  // A link, once found, holds for a minute (confirm re-reads it); "not linked" only briefly, so a link made at sign-in works at once.
  private readonly links = new LRUCache<string, CachedLink>({ max: 10_000, ttl: 60_000 });
  private readonly unlinked = new LRUCache<string, true>({ max: 10_000, ttl: 5_000 });

  constructor(
    private readonly db: Db,
    private readonly settings: ProviderTokenSettings,
    private readonly log: Logger,
  ) {
    this.directory = new ProviderDirectory(db, { ttlMs: 30_000, missReloadMs: 5_000 });
    this.keys = new ProviderKeys({
      httpTimeoutMs: settings.httpTimeoutMs,
      cooldownMs: settings.jwksCooldownMs,
      maxAgeMs: settings.jwksMaxAgeMs,
      http: settings.http,
    });
  }

  /** Steps 1–5 above; `issuer`, `alg` and `kid` are the token's own, still unverified. */
  async verify(token: string, route: { issuer: string; alg: string; kid: string | undefined }): Promise<ProviderCheck> {
    const check = await this.check(token, route);
    // The issuer, kid and alg are the token's own words: cut short so a refused token cannot bloat the log.
    if (!check.ok)
      this.log.info({ issuer: clip(route.issuer), kid: clip(route.kid), alg: clip(route.alg), code: check.code }, "identity-provider token refused");
    return check;
  }

  private async check(token: string, { issuer, alg }: { issuer: string; alg: string }): Promise<ProviderCheck> {
    if (!isProviderAlgorithm(alg)) return refused("TOKEN_ALGORITHM");
    const providers = await this.directory.providersFor(issuer);
    if (providers.length === 0) return refused("TOKEN_ISSUER_UNKNOWN");
    let payload: JWTPayload;
    let header: JWTHeaderParameters;
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(token, this.keys.forIssuer(issuer), {
        algorithms: [...PROVIDER_ALGORITHMS],
        issuer,
        audience: providers.map((provider) => provider.audience),
        requiredClaims: ["exp", "iat", "sub"],
      }));
    } catch (error) {
      return refused(refusalOfJoseError(error));
    }
    const { sub, exp, iat, aud } = payload;
    if (typeof sub !== "string" || !sub || typeof exp !== "number" || typeof iat !== "number") return refused("TOKEN_INVALID");
    const claims = { sub, exp, iat, aud };
    const bound = lifetimeRefusal(claims, this.settings.maxTtlSeconds, Date.now() / 1000);
    if (bound) return refused(bound);
    const link = await this.linkOf(issuer, claims.sub);
    if (!link) return refused("TOKEN_NOT_LINKED");
    // The link's own provider must be one the token was issued for: a token minted for organisation
    // B's client (aud) does not sign in someone linked through organisation A's, even on a shared issuer.
    const through = providers.find((provider) => provider.id === link.providerId);
    if (!through || !audienceIncludes(claims.aud, through.audience)) return refused("TOKEN_AUDIENCE");
    // An ID token issued to our client has `aud` = client id: where that is the API audience too, only what is an access token passes.
    if (through.audienceIsClientId && !isAccessToken(header, payload)) return refused("TOKEN_TYPE");
    return {
      ok: true,
      identity: {
        issuer,
        subject: claims.sub,
        linkId: link.id,
        providerId: link.providerId,
        orgId: link.orgId,
        userId: link.userId,
        expiresAt: claims.exp * 1000,
      },
    };
  }

  private async linkOf(issuer: string, subject: string): Promise<CachedLink | undefined> {
    const key = `${issuer}\n${subject}`;
    const cached = this.links.get(key);
    if (cached || this.unlinked.get(key)) return cached;
    const row = await findIdentityLink(this.db, issuer, subject);
    if (!row) {
      this.unlinked.set(key, true);
      return undefined;
    }
    const link = { id: row.id, orgId: row.org_id, userId: row.user_id, providerId: row.provider_id };
    this.links.set(key, link);
    return link;
  }

  /** The database step: the link still exists for the same person and its provider is still enabled. */
  async confirm(identity: ProviderIdentity): Promise<TokenRefusalCode | null> {
    const [link, provider] = await Promise.all([
      findIdentityLink(this.db, identity.issuer, identity.subject),
      findIdentityProvider(this.db, identity.providerId),
    ]);
    if (!link || link.id !== identity.linkId || link.user_id !== identity.userId || link.org_id !== identity.orgId) return "TOKEN_NOT_LINKED";
    if (!provider?.enabled || provider.issuer !== identity.issuer) return "TOKEN_ISSUER_UNKNOWN";
    return null;
  }

  /** How often this node fetched an issuer's discovery document and JWKS (the refetch bound). */
  fetchCounts(issuer: string): ProviderFetchCounts {
    return this.keys.fetchCounts(issuer);
  }
}
