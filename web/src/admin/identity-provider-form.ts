/**
 * An identity provider as the console's Sign-in page shows and edits it: the API's view, the
 * form's fields for each protocol (OpenID Connect, SAML 2.0), and the request body a form makes.
 * The client secret is write-only: the form starts empty and an empty field keeps the stored one.
 */

export type Protocol = "oidc" | "saml";

/** The protocols' own names, the same in every language (i18n-ignore). */
export const PROTOCOL_NAMES: Record<Protocol, string> = { oidc: "OpenID Connect", saml: "SAML 2.0" };

/** A SAML provider's part of the view: what its IdP metadata said, and our SP's values to give the IdP. */
export interface SamlView {
  idp_entity_id: string;
  metadata_url: string | null;
  allow_idp_initiated: boolean;
  sp_entity_id: string;
  sp_metadata_url: string;
  acs_url: string;
}

export interface ProviderView {
  id: string;
  protocol: Protocol;
  display_name: string;
  allowed_domains: string[];
  allowed_domain_status: Record<string, "verified" | "pending" | "not_claimed">;
  claim_mapping: { email?: string; name?: string; department?: string; groups?: string; admin_groups?: string[]; trust_email?: boolean };
  jit_enabled: boolean;
  enabled: boolean;
  // OpenID Connect
  issuer?: string;
  client_id?: string;
  client_secret_set?: boolean;
  redirect_uri?: string;
  // SAML 2.0
  saml?: SamlView | null;
}

export interface Form {
  protocol: Protocol;
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  idp_metadata_url: string;
  /** The uploaded metadata file's text; empty keeps what is stored. */
  idp_metadata_xml: string;
  allow_idp_initiated: boolean;
  allowed_domains: string;
  groups_claim: string;
  admin_groups: string;
  department_claim: string;
  email_claim: string;
  name_claim: string;
  trust_email: boolean;
  jit_enabled: boolean;
  enabled: boolean;
}

export const EMPTY_FORM: Form = {
  protocol: "oidc",
  display_name: "",
  issuer: "",
  client_id: "",
  client_secret: "",
  idp_metadata_url: "",
  idp_metadata_xml: "",
  allow_idp_initiated: false,
  allowed_domains: "",
  groups_claim: "",
  admin_groups: "",
  department_claim: "",
  email_claim: "",
  name_claim: "",
  trust_email: false,
  jit_enabled: false,
  enabled: true,
};

export const list = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

export const unverified = (view: ProviderView): string[] => view.allowed_domains.filter((domain) => view.allowed_domain_status[domain] !== "verified");

export function formOf(view: ProviderView): Form {
  return {
    ...EMPTY_FORM,
    protocol: view.protocol,
    display_name: view.display_name,
    issuer: view.issuer ?? "",
    client_id: view.client_id ?? "",
    idp_metadata_url: view.saml?.metadata_url ?? "",
    allow_idp_initiated: view.saml?.allow_idp_initiated ?? false,
    allowed_domains: view.allowed_domains.join(", "),
    groups_claim: view.claim_mapping.groups ?? "",
    admin_groups: (view.claim_mapping.admin_groups ?? []).join(", "),
    department_claim: view.claim_mapping.department ?? "",
    email_claim: view.claim_mapping.email ?? "",
    name_claim: view.claim_mapping.name ?? "",
    trust_email: view.claim_mapping.trust_email ?? false,
    jit_enabled: view.jit_enabled,
    enabled: view.enabled,
  };
}

function claimMappingOf(form: Form): Record<string, unknown> {
  const mapping: Record<string, unknown> = {};
  if (form.groups_claim.trim()) mapping.groups = form.groups_claim.trim();
  if (list(form.admin_groups).length > 0) mapping.admin_groups = list(form.admin_groups);
  if (form.department_claim.trim()) mapping.department = form.department_claim.trim();
  if (form.email_claim.trim()) mapping.email = form.email_claim.trim();
  if (form.name_claim.trim()) mapping.name = form.name_claim.trim();
  if (form.protocol === "oidc" && form.trust_email) mapping.trust_email = true;
  return mapping;
}

export function bodyOf(form: Form): Record<string, unknown> {
  const common = {
    display_name: form.display_name,
    allowed_domains: list(form.allowed_domains),
    claim_mapping: claimMappingOf(form),
    jit_enabled: form.jit_enabled,
    enabled: form.enabled,
  };
  if (form.protocol === "saml") {
    return {
      protocol: "saml",
      ...common,
      // The uploaded file wins over the URL; neither given keeps the stored metadata.
      ...(form.idp_metadata_xml ? { metadata_xml: form.idp_metadata_xml } : form.idp_metadata_url.trim() ? { metadata_url: form.idp_metadata_url.trim() } : {}),
      allow_idp_initiated: form.allow_idp_initiated,
    };
  }
  return {
    protocol: "oidc",
    ...common,
    issuer: form.issuer.trim(),
    client_id: form.client_id.trim(),
    // Empty keeps the stored secret: the page never has it to send back.
    ...(form.client_secret ? { client_secret: form.client_secret } : {}),
  };
}

/** What to give the identity provider for a saved SAML provider (as the server names them): our entity id, ACS URL and metadata. */
export function serviceProviderValues(view: ProviderView): { entityId: string; acsUrl: string; metadataUrl: string } | null {
  if (!view.saml) return null;
  return { entityId: view.saml.sp_entity_id, acsUrl: view.saml.acs_url, metadataUrl: view.saml.sp_metadata_url };
}
