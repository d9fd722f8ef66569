/**
 * In production, single sign-on needs PUBLIC_URL (review F16): without it the redirect URI sent
 * to the provider, and the logout return address, would be built from the request's `Host` (or,
 * behind TRUST_PROXY, `X-Forwarded-Host`), which the client writes. The provider's exact match of
 * registered redirect URIs limits the harm; this removes it. A server with an enabled provider
 * refuses to start so; a provider saved later cannot start a sign-in until PUBLIC_URL is set.
 * Development and `npm start`'s embedded mode (not production) keep building it from the request.
 */
import { listEnabledIdentityProviders } from "../../../db/queries/identity";
import type { Db } from "../../../db/knex";
import type { Config } from "../../../lib/config";

export class PublicUrlRequired extends Error {
  constructor() {
    super(
      "PUBLIC_URL is not set, and single sign-on is configured: with NODE_ENV=production the redirect URI sent to identity providers is built from PUBLIC_URL only, never from the request's Host header. Set PUBLIC_URL (e.g. https://learn.example.com).",
    );
    this.name = "PublicUrlRequired";
  }
}

/** Whether sign-in may build its URLs: anywhere but production, or with PUBLIC_URL. */
export function signInUrlsKnown(config: Pick<Config, "process" | "server">): boolean {
  return config.process.NODE_ENV !== "production" || Boolean(config.server.PUBLIC_URL);
}

/** Throws PublicUrlRequired when a production server without PUBLIC_URL has an enabled identity provider. */
export async function refuseSsoWithoutPublicUrl(config: Pick<Config, "process" | "server">, db: Db): Promise<void> {
  if (signInUrlsKnown(config)) return;
  if ((await listEnabledIdentityProviders(db)).length > 0) throw new PublicUrlRequired();
}
