/**
 * The single-provider form of the identity-provider settings, kept for organisations with at most
 * one provider (and the clients written before there could be several): the admin for their own
 * organisation, the operator for any. Once an organisation has several providers these answer
 * `409 SEVERAL_IDENTITY_PROVIDERS` and the by-id routes (providers.ts) are the way. Every change
 * is audited (audit_log); the client secret is write-only.
 */
import { soleProvider } from "../../../commands/organisation-identity-provider";
import { organisationExists } from "../../../db/queries/ai-allowance";
import { listIdentityProvidersOfOrg, type IdentityProviderRow } from "../../../db/queries/identity";
import { listOrganisationDomains } from "../../../db/queries/organisation-domains";
import { principalOf } from "../../auth/middleware";
import { ssoOf } from "../../auth/sso/services";
import { notFound } from "../../errors";
import { orgParams } from "../allowance/schema";
import { Refusal } from "../../../lib/refusal";
import type { ServerDeps } from "../../deps";
import { defineRoute } from "../define-route";
import { identityProviderBody, identityProviderResponse, testSignInResponse } from "./schema";
import { presentProvider, removeProviderSettings, saveProviderSettings } from "./settings";

export const TAG = "identity provider";
export const SAVE_ERRORS = [
  "PROVIDER_UNREACHABLE",
  "CLIENT_SECRET_REQUIRED",
  "SECRETS_KEY_MISSING",
  "DOMAIN_CLAIMED",
  "DOMAIN_HAS_PROVIDER",
  "SAML_METADATA_INVALID",
  "SAML_METADATA_UNREACHABLE",
] as const;
const SOLE =
  " For an organisation with at most one provider; with several it answers `409 SEVERAL_IDENTITY_PROVIDERS`: use `/identity-providers/{providerId}`.";
export const PUT_DESCRIPTION =
  "Discovers the issuer first (bounded by OIDC_HTTP_TIMEOUT_MS, through the outbound guard: public addresses only unless " +
  "OUTBOUND_ALLOWED_CIDRS allows more) and refuses one that cannot be reached or is not an OpenID Provider with one generic " +
  "`422 PROVIDER_UNREACHABLE` (nothing saved; the reason is in the server log). `client_secret` is write-only: omitted keeps the stored " +
  "one, but only for the same `issuer` and `client_id` (a change of either without it is `422 CLIENT_SECRET_REQUIRED`). " +
  "`protocol: saml` stores a SAML 2.0 provider from its IdP metadata (`metadata_url`, fetched through the same guard, or `metadata_xml`; " +
  "`422 SAML_METADATA_UNREACHABLE` / `SAML_METADATA_INVALID`); the answer's `saml` names our SP metadata, entity id and ACS to give the IdP.";

/** A single-use test start for this provider (the callback reports instead of signing in); OpenID Connect only. */
export async function testStartUrl(deps: ServerDeps, provider: IdentityProviderRow, actorId: string): Promise<string> {
  if (provider.protocol !== "oidc")
    throw new Refusal(
      "unprocessable",
      "TEST_SIGN_IN_UNSUPPORTED",
      "A test sign-in runs for OpenID Connect providers; try a SAML provider by signing in from a private browser window",
    );
  const ticket = await ssoOf(deps).pending.issueTestTicket(provider.id, actorId);
  return `/api/v1/auth/oidc/${provider.id}/start?return_to=/admin&test=${ticket}`;
}

export const identityProviderRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "The organisation's identity provider (sign-in settings)",
    description: `The single-provider form.${SOLE}`,
    access: "admin",
    responses: { 200: { description: "The settings, or null when none is configured.", schema: identityProviderResponse } },
    errors: ["SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, _input, deps) => {
      const orgId = principalOf(ctx).orgId;
      ctx.body = presentProvider(ctx, deps, soleProvider(await listIdentityProvidersOfOrg(deps.db, orgId)), await listOrganisationDomains(deps.db, orgId));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "Configure the organisation's identity provider (audited)",
    description: `Creates it when there is none, else changes it. ${PUT_DESCRIPTION}${SOLE}`,
    access: "admin",
    body: identityProviderBody,
    responses: { 200: { description: "The saved settings.", schema: identityProviderResponse } },
    errors: [...SAVE_ERRORS, "SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      await saveProviderSettings(ctx, deps, principal.orgId, { kind: "sole" }, body, principal.userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "Remove the organisation's identity provider (audited)",
    description: `Its identity links go with it; people keep their accounts.${SOLE}`,
    access: "admin",
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND", "SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      await removeProviderSettings(ctx, deps, principal.orgId, { kind: "sole" }, principal.userId);
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/identity-provider/test",
    tag: TAG,
    summary: "Start a test sign-in",
    description:
      "Returns a start URL that runs the sign-in in test mode: the provider's login, then a page listing the claims that came back and " +
      `which person they would map to. Nobody is signed in and nothing is changed. Works while the provider is disabled. OpenID Connect only (\`422 TEST_SIGN_IN_UNSUPPORTED\` for SAML).${SOLE}`,
    access: "admin",
    responses: { 201: { description: "The URL to open.", schema: testSignInResponse } },
    errors: ["NOT_FOUND", "SEVERAL_IDENTITY_PROVIDERS", "TEST_SIGN_IN_UNSUPPORTED"],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const provider = soleProvider(await listIdentityProvidersOfOrg(deps.db, principal.orgId));
      if (!provider) throw notFound("Identity provider");
      ctx.status = 201;
      ctx.body = { start_url: await testStartUrl(deps, provider, principal.userId) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "An organisation's identity provider",
    description: `The single-provider form.${SOLE}`,
    access: "operator",
    params: orgParams,
    responses: { 200: { description: "The settings, or null.", schema: identityProviderResponse } },
    errors: ["NOT_FOUND", "SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      ctx.body = presentProvider(ctx, deps, soleProvider(await listIdentityProvidersOfOrg(deps.db, orgId)), await listOrganisationDomains(deps.db, orgId));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "Configure an organisation's identity provider (audited)",
    description: `Creates it when there is none, else changes it. ${PUT_DESCRIPTION}${SOLE}`,
    access: "operator",
    params: orgParams,
    body: identityProviderBody,
    responses: { 200: { description: "The saved settings.", schema: identityProviderResponse } },
    errors: ["NOT_FOUND", ...SAVE_ERRORS, "SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, { params: { orgId }, body }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await saveProviderSettings(ctx, deps, orgId, { kind: "sole" }, body, principalOf(ctx).userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "Remove an organisation's identity provider (audited)",
    description: `The single-provider form.${SOLE}`,
    access: "operator",
    params: orgParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND", "SEVERAL_IDENTITY_PROVIDERS"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await removeProviderSettings(ctx, deps, orgId, { kind: "sole" }, principalOf(ctx).userId);
    },
  }),
];
