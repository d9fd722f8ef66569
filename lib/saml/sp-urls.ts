/**
 * Where a SAML provider's service provider lives here, one set per provider (never per
 * organisation alone): each provider has its own entity id, so an assertion an IdP made for one
 * provider has the wrong audience at every other.
 */
export const SAML_BASE = "/api/v1/auth/saml";

export const samlPaths = (providerId: string) => ({
  metadata: `${SAML_BASE}/${providerId}/metadata`,
  start: `${SAML_BASE}/${providerId}/start`,
  acs: `${SAML_BASE}/${providerId}/acs`,
  slo: `${SAML_BASE}/${providerId}/slo`,
});

export interface SamlSpUrls {
  /** Our entity id for this provider: the metadata URL, as most SPs do, so it also says where to read it. */
  entityId: string;
  metadata: string;
  acs: string;
  slo: string;
}

export function samlSpUrls(origin: string, providerId: string): SamlSpUrls {
  const paths = samlPaths(providerId);
  return { entityId: `${origin}${paths.metadata}`, metadata: `${origin}${paths.metadata}`, acs: `${origin}${paths.acs}`, slo: `${origin}${paths.slo}` };
}
