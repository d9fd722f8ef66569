/**
 * openid-client configurations of the organisations' identity providers: discovery through the
 * outbound client (lib/outbound/client.ts: public addresses over HTTPS unless the operator's
 * OUTBOUND_ALLOWED_CIDRS allows the address, then plain HTTP too; bounded in time by
 * OIDC_HTTP_TIMEOUT_MS and in size, on every request the configuration later makes too), kept for
 * a few minutes per provider version so a sign-in does not rediscover the issuer each time.
 */
import * as oidc from "openid-client";
import type { Logger } from "pino";
import type { Config } from "../../../lib/config";
import { Refusal } from "../../../lib/refusal";
import { OutboundFailure, type OutboundClient } from "../../../lib/outbound/client";
import { outboundClientOf } from "../../../lib/outbound/client-of-config";
import { SecretBox } from "../../../lib/secret-box";
import { TtlCache } from "../../../lib/ttl-cache";
import type { IdentityProviderRow } from "../../../db/queries/identity";

const CACHE_MS = 5 * 60_000;

/** Why discovery failed, for the log: openid-client's own message is often "something went wrong" over a cause. */
export function describeProviderError(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof OutboundFailure) return `${cause.reason}: ${cause.message}`;
    if (cause.message && cause.message !== "something went wrong") messages.push(cause.message);
  }
  return messages.join(": ") || "the issuer did not answer as an OpenID Provider";
}

export interface ClientCredentials {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
}

/**
 * Discovers the issuer and checks what sign-in needs of it (an authorization and a token endpoint).
 * Every request this configuration makes (discovery, JWKS, the code exchange) goes through the
 * outbound client, which decides where it may connect and whether plain HTTP is allowed there;
 * openid-client's own HTTPS-only check is turned off for `http://` issuers for that reason.
 */
export async function discoverProvider(credentials: ClientCredentials, timeoutMs: number, outbound: OutboundClient): Promise<oidc.Configuration> {
  const issuer = new URL(credentials.issuer);
  const auth = credentials.clientSecret ? oidc.ClientSecretPost(credentials.clientSecret) : oidc.None();
  const config = await oidc.discovery(issuer, credentials.clientId, undefined, auth, {
    execute: issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : [],
    [oidc.customFetch]: outbound.fetcher({ timeoutMs }),
    timeout: Math.ceil(timeoutMs / 1000),
  });
  const metadata = config.serverMetadata();
  if (!metadata.authorization_endpoint || !metadata.token_endpoint) throw new TypeError("the issuer's metadata has no authorization or token endpoint");
  return config;
}

/**
 * The check the settings command runs before it stores a provider: discovery with these
 * credentials. Whatever went wrong (refused, closed or filtered port, timeout, TLS, not JSON, not
 * an OpenID Provider, a forbidden address) the admin gets one answer, so the check cannot map
 * ports or services; the reason is logged with the request id.
 */
export function discoveryCheck(deps: { config: Pick<Config, "auth" | "outbound">; log: Logger }) {
  return async (credentials: ClientCredentials): Promise<void> => {
    try {
      await discoverProvider(credentials, deps.config.auth.OIDC_HTTP_TIMEOUT_MS, outboundClientOf(deps.config));
    } catch (error) {
      deps.log.warn({ issuer: credentials.issuer, reason: describeProviderError(error) }, "identity provider discovery failed");
      throw new Refusal(
        "unprocessable",
        "PROVIDER_UNREACHABLE",
        "Could not use this issuer as an OpenID Connect provider: it could not be reached at an allowed address (public over HTTPS, or within the operator's OUTBOUND_ALLOWED_CIDRS), or did not answer as an OpenID Provider. The server log has the reason under this request's X-Request-Id. Nothing was saved.",
      );
    }
  };
}

export class ProviderClients {
  private readonly cache = new TtlCache<oidc.Configuration>(CACHE_MS, 1_000);
  private readonly secrets: SecretBox | null;

  constructor(
    secretsKey: string | undefined,
    private readonly timeoutMs: number,
    private readonly outbound: OutboundClient,
  ) {
    this.secrets = secretsKey ? new SecretBox(secretsKey) : null;
  }

  /** The provider's configuration; only a successful discovery is kept, so after an outage the next sign-in tries again. */
  async configurationFor(provider: IdentityProviderRow): Promise<oidc.Configuration> {
    const key = `${provider.id}:${provider.updated_at.getTime()}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const secret = provider.client_secret_encrypted && this.secrets ? this.secrets.open(provider.client_secret_encrypted) : null;
    const config = await discoverProvider({ issuer: provider.issuer, clientId: provider.client_id, clientSecret: secret }, this.timeoutMs, this.outbound);
    this.cache.set(key, config);
    return config;
  }

  seal(secret: string): string | null {
    return this.secrets?.seal(secret) ?? null;
  }

  get canSeal(): boolean {
    return this.secrets !== null;
  }
}
