/**
 * An operator stores (or removes) an organisation's identity provider: `npm run org -- idp …`.
 * The client secret is sealed with SECRETS_KEY (lib/secret-box.ts) before it reaches the
 * database, and nothing here ever returns or logs it; a secret cannot be stored without the key.
 * Audited like the operator's other changes, with what changed but never the secret.
 */
import type { Config } from "../lib/config";
import { Refusal } from "../lib/refusal";
import { SecretBox } from "../lib/secret-box";
import { deleteIdentityProvider, findIdentityProviderOfOrg, saveIdentityProvider, type ClaimMapping, type IdentityProviderRow } from "../db/queries/identity";
import { auditOperatorChange, organisationIdOfSlug } from "../db/queries/organizations";
import { approveDomain } from "./organisation-domains";
import { organisationNamed, type OrganisationDeps, type Operator } from "./organisations";

export interface IdentityProviderRequest {
  issuer: string;
  clientId: string;
  /** undefined keeps a stored secret; a string replaces it. */
  clientSecret?: string;
  displayName: string;
  domains: string[];
  jit: boolean;
  claimMapping: ClaimMapping;
}

type IdpDeps = Pick<OrganisationDeps, "db" | "log"> & { config: Pick<Config, "OPS_ORG" | "SECRETS_KEY" | "DNS_RESOLVERS"> };

/** The provider as it may be shown: the sealed secret becomes whether there is one. */
export type ShownIdentityProvider = Omit<IdentityProviderRow, "client_secret_encrypted"> & { has_client_secret: boolean };

function shown(row: IdentityProviderRow): ShownIdentityProvider {
  const { client_secret_encrypted, ...rest } = row;
  return { ...rest, has_client_secret: client_secret_encrypted !== null };
}

async function audit(deps: IdpDeps, operator: Operator, org: { id: string; slug: string }, action: string, after: unknown): Promise<void> {
  const auditOrgId = operator.via === "api" ? operator.orgId : (deps.config.OPS_ORG && (await organisationIdOfSlug(deps.db, deps.config.OPS_ORG))) || org.id;
  await auditOperatorChange(deps.db, {
    auditOrgId,
    actorId: operator.via === "api" ? operator.userId : null,
    action,
    target: { orgId: org.id, slug: org.slug },
    details: { via: operator.via },
    after,
  });
}

export async function setIdentityProvider(
  deps: IdpDeps,
  operator: Operator,
  idOrSlug: string,
  request: IdentityProviderRequest,
): Promise<ShownIdentityProvider> {
  const org = await organisationNamed(deps, idOrSlug);
  if (request.clientSecret !== undefined && !deps.config.SECRETS_KEY)
    throw new Refusal(
      "invalid",
      "SECRETS_KEY_MISSING",
      "SECRETS_KEY is not set, so the client secret cannot be stored encrypted. Set SECRETS_KEY (at least 32 characters, the same value the server and workers use) and run this again.",
    );
  let issuer: URL;
  try {
    issuer = new URL(request.issuer);
  } catch {
    throw new Refusal("invalid", "VALIDATION_ERROR", `The issuer "${request.issuer}" is not a URL (e.g. https://login.example.com/realms/acme).`);
  }
  if (issuer.protocol !== "https:" && issuer.protocol !== "http:") throw new Refusal("invalid", "VALIDATION_ERROR", "The issuer must be an http(s) URL.");
  // The operator types these domains, so they count as approved by the operator (verified, like
  // `domain approve`): onboarding keeps working without a TXT record (docs/single-sign-on.md).
  for (const domain of new Set(request.domains.map((d) => d.trim().toLowerCase()))) await approveDomain(deps, operator, org.id, domain);
  // Set again (compose's sso-setup does on every `up`): what this command has no flag for — the
  // API audience, whether the admin turned the provider off, the other claim names — stays as stored.
  const before = await findIdentityProviderOfOrg(deps.db, org.id);
  const saved = await saveIdentityProvider(deps.db, org.id, {
    display_name: request.displayName,
    // As typed: tokens' `iss` must equal it exactly, and some issuers end in a slash (Auth0).
    issuer: request.issuer,
    client_id: request.clientId,
    client_secret_encrypted: request.clientSecret === undefined ? undefined : new SecretBox(deps.config.SECRETS_KEY!).seal(request.clientSecret),
    api_audience: before?.api_audience ?? null,
    allowed_domains: request.domains,
    claim_mapping: { ...before?.claim_mapping, ...request.claimMapping },
    jit_enabled: request.jit,
    enabled: before?.enabled ?? true,
  });
  const result = shown(saved);
  await audit(deps, operator, org, "identity_provider.set", {
    issuer: result.issuer,
    client_id: result.client_id,
    display_name: result.display_name,
    allowed_domains: result.allowed_domains,
    jit_enabled: result.jit_enabled,
    claim_mapping: result.claim_mapping,
    client_secret_changed: request.clientSecret !== undefined,
  });
  deps.log.info({ orgId: org.id, issuer: result.issuer }, "identity provider stored");
  return result;
}

export async function showIdentityProvider(deps: Pick<IdpDeps, "db">, idOrSlug: string): Promise<ShownIdentityProvider | undefined> {
  const org = await organisationNamed(deps, idOrSlug);
  const row = await findIdentityProviderOfOrg(deps.db, org.id);
  return row ? shown(row) : undefined;
}

export async function removeIdentityProvider(deps: IdpDeps, operator: Operator, idOrSlug: string): Promise<boolean> {
  const org = await organisationNamed(deps, idOrSlug);
  const removed = await deleteIdentityProvider(deps.db, org.id);
  if (removed) await audit(deps, operator, org, "identity_provider.remove", null);
  return removed;
}
