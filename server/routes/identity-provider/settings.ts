/**
 * Saving an organisation's identity provider, for its admin and for the operator alike: the
 * issuer is discovered first (bounded by OIDC_HTTP_TIMEOUT_MS), so a mistyped or unreachable one
 * is refused with IDP_DISCOVERY_FAILED instead of breaking sign-in later; the client secret is
 * sealed (lib/secret-box.ts) and never comes back: the answer says only whether one is set.
 */
import type { Context } from "koa";
import type { z } from "zod";
import { deleteIdentityProviderAudited, findIdentityProviderOfOrg, saveIdentityProviderAudited, type IdentityProviderRow } from "../../../db/queries/identity";
import { listOrganisationDomains, type OrganisationDomainRow } from "../../../db/queries/organisation-domains";
import { SecretBox } from "../../../lib/secret-box";
import { Refusal } from "../../../lib/refusal";
import { CALLBACK_PATH } from "../../auth/sso/flow";
import { describeProviderError, discoverProvider } from "../../auth/sso/provider-client";
import { publicOrigin } from "../../auth/sso/session";
import type { ServerDeps } from "../../deps";
import type { identityProviderBody, identityProviderView } from "./schema";

type Body = z.output<typeof identityProviderBody>;

export function presentProvider(
  ctx: Context,
  deps: ServerDeps,
  row: IdentityProviderRow | undefined,
  claims: readonly OrganisationDomainRow[] = [],
): { identity_provider: z.input<typeof identityProviderView> | null } {
  if (!row) return { identity_provider: null };
  const standing = (domain: string) => claims.find((claim) => claim.domain === domain)?.status ?? "not_claimed";
  return {
    identity_provider: {
      id: row.id,
      org_id: row.org_id,
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
      updated_at: row.updated_at.toISOString(),
    },
  };
}

function secretBox(deps: ServerDeps): SecretBox {
  if (!deps.config.SECRETS_KEY)
    throw new Refusal("unavailable", "SECRETS_KEY_MISSING", "Set SECRETS_KEY on the server to store a client secret (npm start generates one)");
  return new SecretBox(deps.config.SECRETS_KEY);
}

/** The secret discovery and later sign-ins use: the new one, the stored one, or none. */
function effectiveSecret(deps: ServerDeps, body: Body, stored: IdentityProviderRow | undefined): string | null {
  if (body.client_secret !== undefined) return body.client_secret;
  if (!stored?.client_secret_encrypted) return null;
  return secretBox(deps).open(stored.client_secret_encrypted);
}

export async function saveProviderSettings(ctx: Context, deps: ServerDeps, orgId: string, body: Body, actorId: string): Promise<void> {
  const stored = await findIdentityProviderOfOrg(deps.db, orgId);
  const secret = effectiveSecret(deps, body, stored);
  const sealed = typeof body.client_secret === "string" ? secretBox(deps).seal(body.client_secret) : body.client_secret;
  try {
    await discoverProvider({ issuer: body.issuer, clientId: body.client_id, clientSecret: secret }, deps.config.OIDC_HTTP_TIMEOUT_MS);
  } catch (error) {
    const reason = describeProviderError(error);
    throw new Refusal("invalid", "IDP_DISCOVERY_FAILED", `Could not use ${body.issuer} as an OpenID Connect issuer: ${reason}. Nothing was saved.`);
  }
  const { client_secret: _secret, ...settings } = body;
  const saved = await saveIdentityProviderAudited(
    deps.db,
    orgId,
    { ...settings, ...(sealed !== undefined ? { client_secret_encrypted: sealed } : {}) },
    actorId,
  );
  ctx.body = presentProvider(ctx, deps, saved, await listOrganisationDomains(deps.db, orgId));
}

export async function removeProviderSettings(ctx: Context, deps: ServerDeps, orgId: string, actorId: string): Promise<void> {
  if (!(await deleteIdentityProviderAudited(deps.db, orgId, actorId))) throw Refusal.notFound("Identity provider");
  ctx.status = 204;
}
