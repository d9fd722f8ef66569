/**
 * openid-client configurations of the organisations' identity providers: discovery with a bounded
 * timeout (OIDC_HTTP_TIMEOUT_MS, on every request the configuration later makes too), kept for a
 * few minutes per provider version so a sign-in does not rediscover the issuer each time.
 * Plain-HTTP issuers are accepted only on a loopback address or a `*.localhost` name (a provider
 * on this machine, as in tests, or beside it in the compose `sso` profile, whose Keycloak is
 * `keycloak.localhost` to the browser and the server alike); anything else must be HTTPS.
 */
import * as oidc from "openid-client";
import type { Logger } from "pino";
import type { Config } from "../../../lib/config";
import { Refusal } from "../../../lib/refusal";
import { canonicalHost, isLoopbackHost } from "../../../lib/loopback";
import { refuseMetadataDestinations } from "../../../lib/outbound-guard";
import { SecretBox } from "../../../lib/secret-box";
import { TtlCache } from "../../../lib/ttl-cache";
import type { IdentityProviderRow } from "../../../db/queries/identity";

const CACHE_MS = 5 * 60_000;

/** A request to the provider that ran past the timeout. */
export class ProviderTimeout extends Error {
  constructor(url: string, ms: number) {
    super(`${new URL(url).origin} did not answer within ${ms} ms`);
    this.name = "ProviderTimeout";
  }
}

export function isProviderTimeout(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof ProviderTimeout) return true;
  return false;
}

/** Why discovery failed, in words an admin can act on: openid-client's own message is often "something went wrong" over a cause. */
export function describeProviderError(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ProviderTimeout) return cause.message;
    if (cause.message && cause.message !== "something went wrong") messages.push(cause.message);
  }
  return messages.join(": ") || "the issuer did not answer as an OpenID Provider";
}

/** fetch bounded by `ms`, whatever signal openid-client passes; a timeout says so by its class. */
function boundedFetch(ms: number): oidc.CustomFetch {
  return async (url, options) => {
    const timeout = AbortSignal.timeout(ms);
    await refuseMetadataDestinations(url);
    try {
      return await fetch(url, { ...options, signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout });
    } catch (error) {
      if (timeout.aborted) throw new ProviderTimeout(url, ms);
      throw error;
    }
  };
}

export interface ClientCredentials {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
}

/** Names that only ever reach this machine or its compose network: loopback addresses, `localhost` and `*.localhost` (RFC 6761). */
function isLocalName(hostname: string): boolean {
  const host = canonicalHost(hostname);
  return isLoopbackHost(host) || host.endsWith(".localhost");
}

/** Discovers the issuer and checks what sign-in needs of it (an authorization and a token endpoint). */
export async function discoverProvider(credentials: ClientCredentials, timeoutMs: number): Promise<oidc.Configuration> {
  const issuer = new URL(credentials.issuer);
  const insecure = issuer.protocol === "http:";
  if (insecure && !isLocalName(issuer.hostname)) throw new TypeError("the issuer must be an https:// URL");
  const fetcher = boundedFetch(timeoutMs);
  const auth = credentials.clientSecret ? oidc.ClientSecretPost(credentials.clientSecret) : oidc.None();
  const config = await oidc.discovery(issuer, credentials.clientId, undefined, auth, {
    execute: insecure ? [oidc.allowInsecureRequests] : [],
    [oidc.customFetch]: fetcher,
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
export function discoveryCheck(deps: { config: Pick<Config, "OIDC_HTTP_TIMEOUT_MS">; log: Logger }) {
  return async (credentials: ClientCredentials): Promise<void> => {
    try {
      await discoverProvider(credentials, deps.config.OIDC_HTTP_TIMEOUT_MS);
    } catch (error) {
      deps.log.warn({ issuer: credentials.issuer, reason: describeProviderError(error) }, "identity provider discovery failed");
      throw new Refusal(
        "unprocessable",
        "PROVIDER_UNREACHABLE",
        `Could not use ${credentials.issuer} as an OpenID Connect issuer: it could not be reached at an allowed address, or did not answer as an OpenID Provider. The server log has the reason under this request's X-Request-Id. Nothing was saved.`,
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
  ) {
    this.secrets = secretsKey ? new SecretBox(secretsKey) : null;
  }

  /** The provider's configuration; only a successful discovery is kept, so after an outage the next sign-in tries again. */
  async configurationFor(provider: IdentityProviderRow): Promise<oidc.Configuration> {
    const key = `${provider.id}:${provider.updated_at.getTime()}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const secret = provider.client_secret_encrypted && this.secrets ? this.secrets.open(provider.client_secret_encrypted) : null;
    const config = await discoverProvider({ issuer: provider.issuer, clientId: provider.client_id, clientSecret: secret }, this.timeoutMs);
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
