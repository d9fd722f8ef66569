/**
 * node-saml configured for one SAML provider: our entity id, ACS and SLO URLs for it, the IdP's
 * stored signing certificates (several during a rollover), signed assertions required (a signed
 * response alone is not enough), encrypted ones decrypted with this provider's SP key, the
 * audience our entity id, InResponseTo checked against the requests we sent (Redis), a minute of
 * clock skew and at most ten minutes from IssueInstant. What node-saml leaves to its caller
 * (Destination, Recipient, replay, unsolicited responses) is checked in assertion-checks.ts.
 */
import { SAML, ValidateInResponseTo } from "@node-saml/node-saml";
import type { Redis } from "ioredis";
import type { IdentityProviderRow } from "../../../db/queries/identity";
import type { SamlConfig } from "../../../db/queries/saml-config";
import { SecretBox } from "../../../lib/secret-box";
import { SignInFailure } from "../sso/failures";
import { SAML_ASSERTION_MAX_AGE_MS, SAML_CLOCK_SKEW_MS, SAML_REQUEST_TTL_SECONDS, SamlRequestCache } from "./request-cache";
import { type SamlSpUrls, samlSpUrls } from "../../../lib/saml/sp-urls";

/** A SAML provider as sign-in needs it: its stored IdP settings and our key for it. */
export interface SamlProvider {
  row: IdentityProviderRow;
  config: SamlConfig;
  privateKey: string;
  certificate: string;
  urls: SamlSpUrls;
}

/** The provider ready for SAML, or a sign-in failure when it is not one (or its key was sealed under another SECRETS_KEY). */
export function samlProviderOf(row: IdentityProviderRow | undefined, secretsKey: string | undefined, origin: string): SamlProvider {
  if (row?.protocol !== "saml" || !row.saml_config || !row.sp_private_key_encrypted || !row.sp_certificate)
    throw new SignInFailure("SIGN_IN_PROVIDER_DISABLED", "not a configured SAML provider");
  const privateKey = secretsKey ? new SecretBox(secretsKey).open(row.sp_private_key_encrypted) : null;
  if (!privateKey) throw new SignInFailure("SIGN_IN_UNAVAILABLE", "the SP key cannot be opened with SECRETS_KEY");
  return { row, config: row.saml_config, privateKey, certificate: row.sp_certificate, urls: samlSpUrls(origin, row.id) };
}

const pemBody = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");

/** `requests`: pass the cache the caller checks ids with after node-saml (see SamlRequestCache.consume). */
export function samlClient(redis: Redis, provider: SamlProvider, requests = new SamlRequestCache(redis, provider.row.id)): SAML {
  const { config, urls } = provider;
  return new SAML({
    issuer: urls.entityId,
    callbackUrl: urls.acs,
    entryPoint: config.sso_url,
    ...(config.slo_url ? { logoutUrl: config.slo_url } : {}),
    logoutCallbackUrl: urls.slo,
    idpCert: config.signing_certificates,
    idpIssuer: config.entity_id,
    audience: urls.entityId,
    privateKey: provider.privateKey,
    publicCert: pemBody(provider.certificate),
    decryptionPvk: provider.privateKey,
    signatureAlgorithm: "sha256",
    digestAlgorithm: "sha256",
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_SECONDS * 1000,
    cacheProvider: requests,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    maxAssertionAgeMs: SAML_ASSERTION_MAX_AGE_MS,
    // No NameIDPolicy: the IdP sends the NameID format it is configured for (docs/single-sign-on.md).
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  });
}

/** Our SP metadata for this provider: entity id, ACS (HTTP-POST), SLO (HTTP-Redirect), our certificate for signing and encryption. */
export function spMetadataXml(redis: Redis, provider: SamlProvider): string {
  return samlClient(redis, provider).generateServiceProviderMetadata(provider.certificate, provider.certificate);
}
