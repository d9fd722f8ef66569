/**
 * Identity providers (several per organisation, each signing in its own email domains) and the links from a provider's (issuer, subject)
 * to a person, as read. A provider's token finds its person only through a link, never through a
 * claim naming an organisation. The client secret is stored sealed (lib/secret-box.ts); rows read
 * here carry the sealed form and callers that answer the API leave it out. Writes:
 * identity-provider-writes.ts and identity-link-writes.ts, called by commands.
 */
import { z } from "zod";
import type { Db } from "../knex";
import { parseSamlConfig, type SamlConfig } from "./saml-config";

/** Which claims carry our fields; unset names fall back to the OpenID standard ones. */
export const claimMappingSchema = z.object({
  email: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100).optional(),
  department: z.string().min(1).max(100).optional(),
  /** The claim listing the person's groups (e.g. `groups`, Entra's `roles`). */
  groups: z.string().min(1).max(100).optional(),
  /**
   * The provider vouches for the email claim without sending `email_verified` (Entra ID, whose
   * `email`/`upn` is the tenant's own directory). Off: an email counts as verified only when it
   * is the standard `email` claim and `email_verified` is true.
   */
  trust_email: z.boolean().optional(),
  /** Members of any of these groups are admins; everyone else an employee. Empty: roles are not synced. */
  admin_groups: z.array(z.string().min(1).max(200)).max(50).optional(),
});
export type ClaimMapping = z.infer<typeof claimMappingSchema>;

export type IdentityProtocol = "oidc" | "saml";

export interface IdentityProviderRow {
  id: string;
  org_id: string;
  display_name: string;
  protocol: IdentityProtocol;
  /** OpenID Connect only (null for SAML). */
  issuer: string | null;
  client_id: string | null;
  client_secret_encrypted: string | null;
  api_audience: string | null;
  allowed_domains: string[];
  claim_mapping: ClaimMapping;
  jit_enabled: boolean;
  enabled: boolean;
  /** SAML only: the IdP's metadata and our choices; null for OpenID Connect. */
  saml_config: SamlConfig | null;
  /** SAML only: our service provider's key for this provider, sealed with SECRETS_KEY, and its certificate. */
  sp_private_key_encrypted: string | null;
  sp_certificate: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An OpenID Connect provider: issuer and client id are set (a check constraint says so). */
export type OidcProviderRow = IdentityProviderRow & { protocol: "oidc"; issuer: string; client_id: string };

export function isOidcProvider(row: IdentityProviderRow): row is OidcProviderRow {
  return row.protocol === "oidc" && row.issuer !== null && row.client_id !== null;
}

export const IDENTITY_PROVIDER_COLUMNS = [
  "id",
  "org_id",
  "display_name",
  "protocol",
  "issuer",
  "client_id",
  "client_secret_encrypted",
  "api_audience",
  "allowed_domains",
  "claim_mapping",
  "jit_enabled",
  "enabled",
  "saml_config",
  "sp_private_key_encrypted",
  "sp_certificate",
  "created_at",
  "updated_at",
];

export function parseIdentityProviderRow(row: Record<string, unknown> | undefined): IdentityProviderRow | undefined {
  if (!row) return undefined;
  // A mapping written by an older release (or by hand) that no longer parses reads as "standard claims".
  const mapping = claimMappingSchema.safeParse(row.claim_mapping ?? {});
  return {
    ...(row as unknown as IdentityProviderRow),
    claim_mapping: mapping.success ? mapping.data : {},
    saml_config: row.saml_config ? parseSamlConfig(row.saml_config) : null,
  };
}

/** The organisation's providers, by name (then age, so the order is stable). */
export async function listIdentityProvidersOfOrg(db: Db, orgId: string): Promise<IdentityProviderRow[]> {
  const rows = await db("identity_providers").select(IDENTITY_PROVIDER_COLUMNS).where({ org_id: orgId }).orderBy(["display_name", "created_at", "id"]);
  return rows.map((row) => parseIdentityProviderRow(row)!);
}

/** One provider of this organisation; another organisation's id finds nothing, as an unknown one does. */
export async function findIdentityProviderOfOrg(db: Db, orgId: string, providerId: string): Promise<IdentityProviderRow | undefined> {
  return parseIdentityProviderRow(await db("identity_providers").select(IDENTITY_PROVIDER_COLUMNS).where({ org_id: orgId, id: providerId }).first());
}

export async function findIdentityProvider(db: Db, providerId: string): Promise<IdentityProviderRow | undefined> {
  return parseIdentityProviderRow(await db("identity_providers").select(IDENTITY_PROVIDER_COLUMNS).where({ id: providerId }).first());
}

/** Every enabled provider with this issuer (several organisations may share one, e.g. Google). */
export async function findIdentityProvidersByIssuer(db: Db, issuer: string): Promise<OidcProviderRow[]> {
  const rows = await db("identity_providers").select(IDENTITY_PROVIDER_COLUMNS).where({ issuer, enabled: true, protocol: "oidc" });
  return rows.map((row) => parseIdentityProviderRow(row)!).filter(isOidcProvider);
}

/**
 * Every enabled provider, for the API's token check: it keeps them in memory, so a token naming
 * an unknown issuer is refused without a query (docs/security.md, "Identity providers' tokens").
 */
export async function listEnabledIdentityProviders(db: Db): Promise<IdentityProviderRow[]> {
  const rows = await db("identity_providers").select(IDENTITY_PROVIDER_COLUMNS).where({ enabled: true });
  return rows.map((row) => parseIdentityProviderRow(row)!);
}

export interface IdentityProviderSettings {
  display_name: string;
  protocol: IdentityProtocol;
  issuer: string | null;
  client_id: string | null;
  /** Sealed; `undefined` keeps the stored one, `null` removes it. */
  client_secret_encrypted?: string | null;
  api_audience: string | null;
  allowed_domains: string[];
  claim_mapping: ClaimMapping;
  jit_enabled: boolean;
  enabled: boolean;
  saml_config: SamlConfig | null;
  /** Sealed; `undefined` keeps the stored key pair. */
  sp_private_key_encrypted?: string | null;
  sp_certificate?: string | null;
}

export interface IdentityLinkRow {
  id: string;
  org_id: string;
  user_id: string;
  provider_id: string;
  issuer: string;
  subject: string;
}

/** The person an (issuer, subject) pair was linked to, whatever organisation that is. */
export async function findIdentityLink(db: Db, issuer: string, subject: string): Promise<IdentityLinkRow | undefined> {
  return db("identity_links").select("id", "org_id", "user_id", "provider_id", "issuer", "subject").where({ issuer, subject }).first();
}

/** What the sign-in button needs of an enabled provider. */
export interface SignInProvider {
  id: string;
  display_name: string;
  protocol: IdentityProtocol;
}

const SIGN_IN_COLUMNS = ["p.id", "p.display_name", "p.protocol"];

/**
 * The enabled provider that signs in this email domain: one that lists it, of the organisation
 * that has verified it (one at most, and one enabled provider of it at most lists the domain). A
 * disabled provider, or a domain listed but not verified by the provider's own organisation, finds
 * nothing (review F2: no phishing button for a domain someone else listed).
 */
export async function findSignInProvidersByDomain(db: Db, domain: string): Promise<SignInProvider[]> {
  const lower = domain.toLowerCase();
  return db("identity_providers as p")
    .join("organisation_domains as d", function () {
      this.on("d.org_id", "p.org_id").andOnVal("d.status", "verified");
    })
    .select(SIGN_IN_COLUMNS)
    .where({ "p.enabled": true, "d.domain": lower })
    .whereRaw("? = ANY(p.allowed_domains)", [lower])
    .orderBy("p.display_name")
    .limit(5);
}

export async function findSignInProvidersByOrgSlug(db: Db, slug: string): Promise<SignInProvider[]> {
  return db("identity_providers as p")
    .join("organizations as o", "o.id", "p.org_id")
    .select(SIGN_IN_COLUMNS)
    .where({ "o.slug": slug, "p.enabled": true })
    .orderBy("p.display_name")
    .limit(20);
}

/**
 * Every enabled provider of the organisation that has verified this email domain, for an address
 * on it that no provider lists: the page then offers the organisation's ways in. An unverified
 * domain (pending, or only listed) finds nothing, so the lookup never names the providers of an
 * organisation the domain does not belong to.
 */
export async function findSignInProvidersOfDomainOwner(db: Db, domain: string): Promise<SignInProvider[]> {
  return db("identity_providers as p")
    .join("organisation_domains as d", function () {
      this.on("d.org_id", "p.org_id").andOnVal("d.status", "verified");
    })
    .select(SIGN_IN_COLUMNS)
    .where({ "p.enabled": true, "d.domain": domain.toLowerCase() })
    .orderBy("p.display_name")
    .limit(20);
}

/** The fields a sign-in may set on a person from the provider's claims; unset ones are left alone. */
export interface ClaimedProfile {
  name?: string;
  department?: string | null;
  role?: "admin" | "employee";
  /** ISO 639-1, from the standard `locale` claim: the person's language (the tutor's fallback, and their pages' until they choose). */
  locale?: string;
}

export interface ProvisionedUser {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: "admin" | "employee";
  is_active: boolean;
}
