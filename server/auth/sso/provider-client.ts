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
import { LRUCache } from "lru-cache";
import type { OidcProviderRow } from "../../../db/queries/identity";

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
  const fetcher = outbound.fetcher({ timeoutMs });
  const execute = issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : [];
  const discovered = await oidc.discovery(issuer, credentials.clientId, undefined, oidc.None(), {
    execute,
    [oidc.customFetch]: fetcher,
    timeout: Math.ceil(timeoutMs / 1000),
  });
  const metadata = discovered.serverMetadata();
  if (!metadata.authorization_endpoint || !metadata.token_endpoint) throw new TypeError("the issuer's metadata has no authorization or token endpoint");
  // The client authenticates at the token endpoint the way the provider says it accepts.
  const config = new oidc.Configuration(metadata, credentials.clientId, undefined, clientAuthentication(metadata, credentials.clientSecret));
  config[oidc.customFetch] = fetcher;
  config.timeout = Math.ceil(timeoutMs / 1000);
  for (const option of execute) option(config);
  return config;
}

/** The token-endpoint authentication methods this client can use, in order of preference. */
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/**
 * Which method to use with this provider (OpenID Connect Discovery §3): the first of ours it lists
 * in `token_endpoint_auth_methods_supported`, which defaults to `client_secret_basic` when absent.
 * A provider that accepts neither secret method (private_key_jwt only) gets Basic, and its refusal
 * then reads as a rejected sign-in on the admin's test page.
 */
export function clientAuthMethod(metadata: Pick<oidc.ServerMetadata, "token_endpoint_auth_methods_supported">, clientSecret: string | null): ClientAuthMethod {
  if (!clientSecret) return "none";
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  return "client_secret_basic";
}

function clientAuthentication(metadata: oidc.ServerMetadata, clientSecret: string | null): oidc.ClientAuth {
  const method = clientAuthMethod(metadata, clientSecret);
  if (method === "none" || !clientSecret) return oidc.None();
  return method === "client_secret_post" ? oidc.ClientSecretPost(clientSecret) : oidc.ClientSecretBasic(clientSecret);
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
  private readonly cache = new LRUCache<string, oidc.Configuration>({ max: 1_000, ttl: CACHE_MS });
  private readonly secrets: SecretBox | null;

  constructor(
    secretsKey: string | undefined,
    private readonly timeoutMs: number,
    private readonly outbound: OutboundClient,
  ) {
    this.secrets = secretsKey ? new SecretBox(secretsKey) : null;
  }

  /** The provider's configuration; only a successful discovery is kept, so after an outage the next sign-in tries again. */
  async configurationFor(provider: OidcProviderRow): Promise<oidc.Configuration> {
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
