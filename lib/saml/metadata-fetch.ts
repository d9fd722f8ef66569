/**
 * Fetches a SAML IdP's metadata by URL through the deployment's outbound client, so the URL an
 * admin types is held to the same address rules as OpenID discovery (public addresses, or
 * OUTBOUND_ALLOWED_CIDRS; plain HTTP only there), bounded in time and size.
 */
import type { Config } from "../config";
import { outboundClientOf } from "../outbound/client-of-config";

const METADATA_MAX_BYTES = 2 * 1024 * 1024;

export function metadataFetcher(config: Pick<Config, "outbound" | "auth">): (url: string) => Promise<string> {
  return async (url) => {
    const response = await outboundClientOf(config).request(url, {
      timeoutMs: config.auth.OIDC_HTTP_TIMEOUT_MS,
      maxBytes: METADATA_MAX_BYTES,
      headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    return response.body.toString("utf8");
  };
}
