/**
 * `npm run org -- idp set` as a change for commands/organisation-identity-provider.ts, and a
 * stored provider as the CLI prints it (whether a secret is set, never the sealed secret).
 */
import { validIdentityProviderChange } from "../../commands/identity-provider-change";
import type { ClaimMapping, IdentityProviderRow } from "../../db/queries/identity";
import { Refusal } from "../../lib/refusal";

/** `idp set --protocol saml`: where the IdP metadata is, and the choices only SAML has. */
export interface SamlProviderFlags {
  metadataUrl: string | undefined;
  metadataXml: string | undefined;
  allowIdpInitiated: boolean;
  displayName: string;
  domains: string[];
  jit: boolean;
  claimMapping: ClaimMapping;
}

export function samlProviderChange(flags: SamlProviderFlags, stored: IdentityProviderRow | undefined): ReturnType<typeof validIdentityProviderChange> {
  return validIdentityProviderChange({
    protocol: "saml",
    display_name: flags.displayName,
    ...(flags.metadataUrl !== undefined ? { metadata_url: flags.metadataUrl } : {}),
    ...(flags.metadataXml !== undefined ? { metadata_xml: flags.metadataXml } : {}),
    allow_idp_initiated: flags.allowIdpInitiated,
    allowed_domains: flags.domains,
    claim_mapping: { ...(stored?.protocol === "saml" ? stored.claim_mapping : {}), ...flags.claimMapping },
    jit_enabled: flags.jit,
    enabled: stored?.enabled ?? true,
  });
}

export interface IdentityProviderFlags {
  issuer: string;
  clientId: string;
  /** undefined keeps a stored secret (for the same issuer and client only); null clears it. */
  clientSecret: string | null | undefined;
  displayName: string;
  domains: string[];
  jit: boolean;
  claimMapping: ClaimMapping;
}

/** The provider as it may be shown: the sealed secret becomes whether there is one. */
export type ShownIdentityProvider = Omit<IdentityProviderRow, "client_secret_encrypted" | "sp_private_key_encrypted"> & { has_client_secret: boolean };

export function shownProvider(row: IdentityProviderRow): ShownIdentityProvider {
  const { client_secret_encrypted, sp_private_key_encrypted: _spKey, ...rest } = row;
  return { ...rest, has_client_secret: client_secret_encrypted !== null };
}

/**
 * The whole provider the flags describe, validated as the API validates it. Set again (compose's sso-setup does on every `up`): what
 * the command has no flag for — the API audience, whether the admin turned the provider off, the
 * other claim names — stays as stored.
 */
export function identityProviderChange(flags: IdentityProviderFlags, stored: IdentityProviderRow | undefined): ReturnType<typeof validIdentityProviderChange> {
  let issuer: URL;
  try {
    issuer = new URL(flags.issuer);
  } catch {
    throw new Refusal("invalid", "VALIDATION_ERROR", `The issuer "${flags.issuer}" is not a URL (e.g. https://login.example.com/realms/acme).`);
  }
  if (issuer.protocol !== "https:" && issuer.protocol !== "http:") throw new Refusal("invalid", "VALIDATION_ERROR", "The issuer must be an http(s) URL.");
  // Validated as the API validates it, before `idp set` approves any of its domains.
  return validIdentityProviderChange({
    display_name: flags.displayName,
    // As typed: tokens' `iss` must equal it exactly, and some issuers end in a slash (Auth0).
    issuer: flags.issuer,
    client_id: flags.clientId,
    ...(flags.clientSecret !== undefined ? { client_secret: flags.clientSecret } : {}),
    api_audience: stored?.api_audience ?? null,
    allowed_domains: flags.domains,
    // A SAML provider's attribute names are no OpenID claims: switching protocol starts from the standard ones.
    claim_mapping: { ...(stored?.protocol === "saml" ? {} : stored?.claim_mapping), ...flags.claimMapping },
    jit_enabled: flags.jit,
    enabled: stored?.enabled ?? true,
  });
}
