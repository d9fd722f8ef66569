/**
 * Saving an organisation's identity providers, for its admin and for the operator alike, through
 * commands/organisation-identity-provider.ts: the issuer is discovered first (bounded by
 * OIDC_HTTP_TIMEOUT_MS and the outbound guard), so a mistyped or unreachable one is refused with
 * `422 PROVIDER_UNREACHABLE` instead of breaking sign-in later; the client secret is sealed and
 * never comes back: the answer says only whether one is set. A SAML provider's IdP metadata is
 * fetched through the same guard, and its view names our SP's entity id, metadata and ACS URLs.
 */
import type { Context } from "koa";
import type { z } from "zod";
import { type ProviderTarget, removeIdentityProvider, saveIdentityProvider } from "../../../commands/organisation-identity-provider";
import { listIdentityProvidersOfOrg, type IdentityProviderRow } from "../../../db/queries/identity";
import { listOrganisationDomains, type OrganisationDomainRow } from "../../../db/queries/organisation-domains";
import { Refusal } from "../../../lib/refusal";
import { CALLBACK_PATH } from "../../auth/sso/flow";
import { discoveryCheck } from "../../auth/sso/provider-client";
import { publicOrigin } from "../../auth/sso/session";
import { samlSpUrls } from "../../../lib/saml/sp-urls";
import { metadataFetcher } from "../../../lib/saml/metadata-fetch";
import type { ServerDeps } from "../../deps";
import type { identityProviderBody, identityProviderView } from "./schema";

type Body = z.output<typeof identityProviderBody>;
type View = z.input<typeof identityProviderView>;

/** What the admin gives the IdP (our SP's URLs) and what we read from its metadata; null for OpenID Connect. */
function samlView(origin: string, row: IdentityProviderRow): View["saml"] {
  if (row.protocol !== "saml" || !row.saml_config) return null;
  const sp = samlSpUrls(origin, row.id);
  const { entity_id, sso_url, slo_url, metadata_url, allow_idp_initiated, signing_certificates } = row.saml_config;
  return {
    idp_entity_id: entity_id,
    sso_url,
    slo_url,
    metadata_url,
    allow_idp_initiated,
    signing_certificates: signing_certificates.length,
    sp_entity_id: sp.entityId,
    sp_metadata_url: sp.metadata,
    acs_url: sp.acs,
    slo_callback_url: sp.slo,
  };
}

export function presentProvider(
  ctx: Context,
  deps: ServerDeps,
  row: IdentityProviderRow | undefined,
  claims: readonly OrganisationDomainRow[] = [],
): { identity_provider: View | null } {
  return { identity_provider: row ? providerView(ctx, deps, row, claims) : null };
}

/** Every provider of the organisation, each with its domains' standing. */
export async function presentProviders(ctx: Context, deps: ServerDeps, orgId: string): Promise<{ identity_providers: View[] }> {
  const [rows, claims] = await Promise.all([listIdentityProvidersOfOrg(deps.db, orgId), listOrganisationDomains(deps.db, orgId)]);
  return { identity_providers: rows.map((row) => providerView(ctx, deps, row, claims)) };
}

function providerView(ctx: Context, deps: ServerDeps, row: IdentityProviderRow, claims: readonly OrganisationDomainRow[]): View {
  const standing = (domain: string) => claims.find((claim) => claim.domain === domain)?.status ?? "not_claimed";
  return {
    id: row.id,
    org_id: row.org_id,
    protocol: row.protocol,
    display_name: row.display_name,
    issuer: row.issuer,
    client_id: row.client_id,
    client_secret_set: row.client_secret_encrypted !== null,
    api_audience: row.api_audience,
    allowed_domains: row.allowed_domains,
    allowed_domain_status: Object.fromEntries(row.allowed_domains.map((domain) => [domain, standing(domain)])),
    claim_mapping: row.claim_mapping,
    jit_enabled: row.jit_enabled,
    enabled: row.enabled,
    redirect_uri: `${publicOrigin(ctx, deps)}${CALLBACK_PATH}`,
    saml: samlView(publicOrigin(ctx, deps), row),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The change the body states; the body's defaults (api_audience null, enabled true) are the API's. A new provider answers 201. */
export async function saveProviderSettings(ctx: Context, deps: ServerDeps, orgId: string, target: ProviderTarget, body: Body, actorId: string): Promise<void> {
  const saved = await saveIdentityProvider(
    { ...deps, checkProvider: discoveryCheck(deps), fetchMetadata: metadataFetcher(deps.config) },
    { via: "api", userId: actorId },
    orgId,
    target,
    body,
  );
  if (target.kind === "new") ctx.status = 201;
  ctx.body = presentProvider(ctx, deps, saved, await listOrganisationDomains(deps.db, orgId));
}

export async function removeProviderSettings(
  ctx: Context,
  deps: ServerDeps,
  orgId: string,
  target: Exclude<ProviderTarget, { kind: "new" }>,
  actorId: string,
): Promise<void> {
  if (!(await removeIdentityProvider(deps, { via: "api", userId: actorId }, orgId, target))) throw Refusal.notFound("Identity provider");
  ctx.status = 204;
}
