/**
 * Each identity provider's signing keys, fetched from the `jwks_uri` its discovery document
 * names and kept in memory. The one rule that matters: **at most one fetch per issuer per
 * cooldown**, whatever the tokens say. A token whose `kid` is not cached refetches the JWKS only
 * if the last attempt (successful or not) is older than the cooldown; a cache past its maximum
 * age is refreshed under the same gate; a provider that failed is not asked again until the
 * cooldown has passed. So a flood of tokens with random `kid`s, or an outage, costs one request
 * per cooldown, and every request waits at most `httpTimeoutMs` for the provider.
 *
 * jose's `createRemoteJWKSet` has the same cooldown for unknown `kid`s but counts it from the last
 * *successful* fetch, so a failing provider would be asked on every token; hence this wrapper
 * around jose's `createLocalJWKSet`, which does the key selection.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { OUTBOUND_MAX_BYTES, type OutboundClient } from "../../lib/outbound/client";
import { ProviderUnavailable } from "./token-claims";

export interface ProviderKeySettings {
  httpTimeoutMs: number;
  /** At most one fetch per issuer per this long (unknown `kid`, stale cache or an earlier failure). */
  cooldownMs: number;
  /** How long a fetched JWKS (and discovery document) is trusted before it is fetched again. */
  maxAgeMs: number;
  now?: () => number;
  /** The outbound client (lib/outbound/client.ts: allowed addresses only, bounded in time and size); tests script its answers. */
  http: Pick<OutboundClient, "request">;
}

/** What this node asked of one issuer, for operators (and the tests that bound it). */
export interface ProviderFetchCounts {
  discovery: number;
  jwks: number;
  failures: number;
}

// The JWKS address is the provider's word: https only, unless the operator allowed its address (the outbound client checks that at connect).
const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.url({ protocol: /^https?$/ }) });
const jwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });

class IssuerKeys {
  private local: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private lastFailure: ProviderUnavailable | undefined;
  readonly counts: ProviderFetchCounts = { discovery: 0, jwks: 0, failures: 0 };

  constructor(
    private readonly issuer: string,
    private readonly settings: Required<ProviderKeySettings>,
  ) {}

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.settings.now();
    if (!this.local || now - this.fetchedAt >= this.settings.maxAgeMs) await this.refresh();
    // A cache that is still stale here could not be refreshed (within the cooldown or failing): refuse rather than trust it.
    if (!this.local || this.settings.now() - this.fetchedAt >= this.settings.maxAgeMs)
      throw this.lastFailure ?? new ProviderUnavailable(this.issuer, "no keys");
    try {
      return await this.local(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await this.refresh();
      return this.local(header, token);
    }
  };

  /** Fetches discovery + JWKS once, unless an attempt is already running or happened within the cooldown. */
  private async refresh(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.settings.now() - this.attemptedAt < this.settings.cooldownMs) return;
    this.attemptedAt = this.settings.now();
    this.pending = this.fetchKeys()
      .then((jwks) => {
        this.local = createLocalJWKSet(jwks);
        this.fetchedAt = this.settings.now();
        this.lastFailure = undefined;
      })
      .catch((error: unknown) => {
        this.counts.failures += 1;
        this.lastFailure = error instanceof ProviderUnavailable ? error : new ProviderUnavailable(this.issuer, String(error));
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async fetchKeys(): Promise<JSONWebKeySet> {
    // The discovery document is read with the keys (same age): a provider that moves its jwks_uri is followed.
    this.counts.discovery += 1;
    const discovery = discoverySchema.safeParse(await this.getJson(`${this.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`));
    if (!discovery.success) throw new ProviderUnavailable(this.issuer, "discovery document without jwks_uri");
    // OpenID Connect Discovery §4.3: the document must name exactly the issuer it was fetched for.
    if (discovery.data.issuer !== this.issuer) throw new ProviderUnavailable(this.issuer, "discovery document names another issuer");
    this.counts.jwks += 1;
    const jwks = jwksSchema.safeParse(await this.getJson(discovery.data.jwks_uri));
    if (!jwks.success) throw new ProviderUnavailable(this.issuer, "JWKS without keys");
    return jwks.data as JSONWebKeySet;
  }

  /** One bounded GET through the outbound client; whatever fails (address, timeout, size, status, JSON) is ProviderUnavailable. */
  private async getJson(url: string): Promise<unknown> {
    try {
      const response = await this.settings.http.request(url, {
        headers: { accept: "application/json" },
        timeoutMs: this.settings.httpTimeoutMs,
        maxBytes: OUTBOUND_MAX_BYTES,
      });
      if (response.status !== 200) throw new ProviderUnavailable(this.issuer, `HTTP ${response.status} from ${new URL(url).pathname}`);
      return JSON.parse(response.body.toString("utf8"));
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw error;
      throw new ProviderUnavailable(this.issuer, error instanceof Error ? error.message : "unreachable or not JSON");
    }
  }
}

/**
 * The key sets of every issuer this node has verified a token of. Only issuers of enabled
 * providers reach it (the directory refuses the others first), so it grows with the providers,
 * not with what tokens claim.
 */
export class ProviderKeys {
  private readonly issuers = new Map<string, IssuerKeys>();
  private readonly settings: Required<ProviderKeySettings>;

  constructor(settings: ProviderKeySettings) {
    // Keys older than their age are not trusted, and the cooldown decides when they may be fetched again: an age shorter than the cooldown would leave gaps with no keys.
    this.settings = {
      now: () => Date.now(),
      ...settings,
      maxAgeMs: Math.max(settings.maxAgeMs, settings.cooldownMs),
    };
  }

  forIssuer(issuer: string): JWTVerifyGetKey {
    let keys = this.issuers.get(issuer);
    if (!keys) {
      keys = new IssuerKeys(issuer, this.settings);
      this.issuers.set(issuer, keys);
    }
    return keys.getKey;
  }

  fetchCounts(issuer: string): ProviderFetchCounts {
    return { ...(this.issuers.get(issuer)?.counts ?? { discovery: 0, jwks: 0, failures: 0 }) };
  }
}
