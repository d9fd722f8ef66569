/**
 * The identity-provider settings: the organisation's admin for their own organisation, the
 * operator for any. Every change is audited (audit_log); the client secret is write-only.
 */
import { organisationExists } from "../../../db/queries/ai-allowance";
import { findIdentityProviderOfOrg } from "../../../db/queries/identity";
import { listOrganisationDomains } from "../../../db/queries/organisation-domains";
import { principalOf } from "../../auth/middleware";
import { ssoOf } from "../../auth/sso/services";
import { notFound } from "../../errors";
import { orgParams } from "../allowance/schema";
import { Refusal } from "../../../lib/refusal";
import { defineRoute } from "../define-route";
import { identityProviderBody, identityProviderResponse, testSignInResponse } from "./schema";
import { presentProvider, removeProviderSettings, saveProviderSettings } from "./settings";

const TAG = "identity provider";
const SAVE_ERRORS = [
  "PROVIDER_UNREACHABLE",
  "CLIENT_SECRET_REQUIRED",
  "SECRETS_KEY_MISSING",
  "DOMAIN_CLAIMED",
  "SAML_METADATA_INVALID",
  "SAML_METADATA_UNREACHABLE",
] as const;
const PUT_DESCRIPTION =
  "Discovers the issuer first (bounded by OIDC_HTTP_TIMEOUT_MS, through the outbound guard: public addresses only unless " +
  "OUTBOUND_ALLOWED_CIDRS allows more) and refuses one that cannot be reached or is not an OpenID Provider with one generic " +
  "`422 PROVIDER_UNREACHABLE` (nothing saved; the reason is in the server log). `client_secret` is write-only: omitted keeps the stored " +
  "one, but only for the same `issuer` and `client_id` (a change of either without it is `422 CLIENT_SECRET_REQUIRED`). " +
  "`protocol: saml` stores a SAML 2.0 provider from its IdP metadata (`metadata_url`, fetched through the same guard, or `metadata_xml`; " +
  "`422 SAML_METADATA_UNREACHABLE` / `SAML_METADATA_INVALID`); the answer's `saml` names our SP metadata, entity id and ACS to give the IdP.";

export const identityProviderRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "The organisation's identity provider (sign-in settings)",
    access: "admin",
    responses: { 200: { description: "The settings, or null when none is configured.", schema: identityProviderResponse } },
    handler: async (ctx, _input, deps) => {
      const orgId = principalOf(ctx).orgId;
      ctx.body = presentProvider(ctx, deps, await findIdentityProviderOfOrg(deps.db, orgId), await listOrganisationDomains(deps.db, orgId));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "Configure the organisation's identity provider (audited)",
    description: PUT_DESCRIPTION,
    access: "admin",
    body: identityProviderBody,
    responses: { 200: { description: "The saved settings.", schema: identityProviderResponse } },
    errors: [...SAVE_ERRORS],
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      await saveProviderSettings(ctx, deps, principal.orgId, body, principal.userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/admin/identity-provider",
    tag: TAG,
    summary: "Remove the organisation's identity provider (audited)",
    description: "Its identity links go with it; people keep their accounts.",
    access: "admin",
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      await removeProviderSettings(ctx, deps, principal.orgId, principal.userId);
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/identity-provider/test",
    tag: TAG,
    summary: "Start a test sign-in",
    description:
      "Returns a start URL that runs the sign-in in test mode: the provider's login, then a page listing the claims that came back and " +
      "which person they would map to. Nobody is signed in and nothing is changed. Works while the provider is disabled.",
    access: "admin",
    responses: { 201: { description: "The URL to open.", schema: testSignInResponse } },
    errors: ["NOT_FOUND", "TEST_SIGN_IN_UNSUPPORTED"],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const provider = await findIdentityProviderOfOrg(deps.db, principal.orgId);
      if (!provider) throw notFound("Identity provider");
      if (provider.protocol !== "oidc")
        throw new Refusal(
          "unprocessable",
          "TEST_SIGN_IN_UNSUPPORTED",
          "A test sign-in runs for OpenID Connect providers; try a SAML provider by signing in from a private browser window",
        );
      const ticket = await ssoOf(deps).pending.issueTestTicket(provider.id, principal.userId);
      ctx.status = 201;
      ctx.body = { start_url: `/api/v1/auth/oidc/${provider.id}/start?return_to=/admin&test=${ticket}` };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "An organisation's identity provider",
    access: "operator",
    params: orgParams,
    responses: { 200: { description: "The settings, or null.", schema: identityProviderResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      ctx.body = presentProvider(ctx, deps, await findIdentityProviderOfOrg(deps.db, orgId), await listOrganisationDomains(deps.db, orgId));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "Configure an organisation's identity provider (audited)",
    description: PUT_DESCRIPTION,
    access: "operator",
    params: orgParams,
    body: identityProviderBody,
    responses: { 200: { description: "The saved settings.", schema: identityProviderResponse } },
    errors: ["NOT_FOUND", ...SAVE_ERRORS],
    handler: async (ctx, { params: { orgId }, body }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await saveProviderSettings(ctx, deps, orgId, body, principalOf(ctx).userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/ops/orgs/:orgId/identity-provider",
    tag: "ops",
    summary: "Remove an organisation's identity provider (audited)",
    access: "operator",
    params: orgParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await removeProviderSettings(ctx, deps, orgId, principalOf(ctx).userId);
    },
  }),
];
