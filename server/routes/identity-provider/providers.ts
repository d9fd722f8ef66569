/**
 * An organisation's identity providers, several of them (staff on one, contractors on another),
 * each addressed by its id: for the organisation's admin, and for the operator under
 * `/api/v1/ops/orgs/:orgId`. A provider id of another organisation is 404, as an unknown one is.
 * Every change goes through commands/organisation-identity-provider.ts (validated, audited, the
 * client secret write-only).
 */
import { organisationExists } from "../../../db/queries/ai-allowance";
import { findIdentityProviderOfOrg } from "../../../db/queries/identity";
import { listOrganisationDomains } from "../../../db/queries/organisation-domains";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { orgParams } from "../allowance/schema";
import { defineRoute } from "../define-route";
import { PUT_DESCRIPTION, SAVE_ERRORS, TAG, testStartUrl } from "./routes";
import { identityProviderBody, identityProvidersResponse, orgProviderParams, providerParams, savedProviderResponse, testSignInResponse } from "./schema";
import { presentProvider, presentProviders, removeProviderSettings, saveProviderSettings } from "./settings";

const ADMIN = "/api/v1/admin/identity-providers";
const OPS = "/api/v1/ops/orgs/:orgId/identity-providers";
const POST_DESCRIPTION = `${PUT_DESCRIPTION} An organisation has at most 20 providers (\`409 IDENTITY_PROVIDER_LIMIT\`).`;

async function shownProvider(ctx: Parameters<typeof presentProvider>[0], deps: ServerDeps, orgId: string, providerId: string) {
  const row = await findIdentityProviderOfOrg(deps.db, orgId, providerId);
  if (!row) throw notFound("Identity provider");
  return presentProvider(ctx, deps, row, await listOrganisationDomains(deps.db, orgId));
}

async function organisationFound(deps: ServerDeps, orgId: string): Promise<void> {
  if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
}

const adminRoutes = [
  defineRoute({
    method: "get",
    path: ADMIN,
    tag: TAG,
    summary: "The organisation's identity providers",
    access: "admin",
    responses: { 200: { description: "Every provider, by name (an empty list when none is configured).", schema: identityProvidersResponse } },
    handler: async (ctx, _input, deps) => {
      ctx.body = await presentProviders(ctx, deps, principalOf(ctx).orgId);
    },
  }),
  defineRoute({
    method: "post",
    path: ADMIN,
    tag: TAG,
    summary: "Add an identity provider (audited)",
    description: POST_DESCRIPTION,
    access: "admin",
    body: identityProviderBody,
    responses: { 201: { description: "The new provider.", schema: savedProviderResponse } },
    errors: [...SAVE_ERRORS, "IDENTITY_PROVIDER_LIMIT"],
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      await saveProviderSettings(ctx, deps, principal.orgId, { kind: "new" }, body, principal.userId);
    },
  }),
  defineRoute({
    method: "get",
    path: `${ADMIN}/:providerId`,
    tag: TAG,
    summary: "One identity provider of the organisation",
    access: "admin",
    params: providerParams,
    responses: { 200: { description: "The provider.", schema: savedProviderResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      ctx.body = await shownProvider(ctx, deps, principalOf(ctx).orgId, params.providerId);
    },
  }),
  defineRoute({
    method: "put",
    path: `${ADMIN}/:providerId`,
    tag: TAG,
    summary: "Change an identity provider (audited)",
    description: PUT_DESCRIPTION,
    access: "admin",
    params: providerParams,
    body: identityProviderBody,
    responses: { 200: { description: "The saved provider.", schema: savedProviderResponse } },
    errors: ["NOT_FOUND", ...SAVE_ERRORS],
    handler: async (ctx, { params, body }, deps) => {
      const principal = principalOf(ctx);
      await saveProviderSettings(ctx, deps, principal.orgId, { kind: "id", id: params.providerId }, body, principal.userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: `${ADMIN}/:providerId`,
    tag: TAG,
    summary: "Remove an identity provider (audited)",
    description: "Its identity links and the browser sessions it began go with it; people keep their accounts, and the other providers stay.",
    access: "admin",
    params: providerParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      const principal = principalOf(ctx);
      await removeProviderSettings(ctx, deps, principal.orgId, { kind: "id", id: params.providerId }, principal.userId);
    },
  }),
  defineRoute({
    method: "post",
    path: `${ADMIN}/:providerId/test`,
    tag: TAG,
    summary: "Start a test sign-in with this provider",
    description:
      "A start URL that runs this provider's sign-in in test mode: the claims that came back and which person they would map to. Nobody " +
      "is signed in and nothing is changed. Works while the provider is disabled. OpenID Connect only (`422 TEST_SIGN_IN_UNSUPPORTED` for SAML).",
    access: "admin",
    params: providerParams,
    responses: { 201: { description: "The URL to open.", schema: testSignInResponse } },
    errors: ["NOT_FOUND", "TEST_SIGN_IN_UNSUPPORTED"],
    handler: async (ctx, { params }, deps) => {
      const principal = principalOf(ctx);
      const provider = await findIdentityProviderOfOrg(deps.db, principal.orgId, params.providerId);
      if (!provider) throw notFound("Identity provider");
      ctx.status = 201;
      ctx.body = { start_url: await testStartUrl(deps, provider, principal.userId) };
    },
  }),
];

const operatorRoutes = [
  defineRoute({
    method: "get",
    path: OPS,
    tag: "ops",
    summary: "An organisation's identity providers",
    access: "operator",
    params: orgParams,
    responses: { 200: { description: "Every provider, by name.", schema: identityProvidersResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      await organisationFound(deps, orgId);
      ctx.body = await presentProviders(ctx, deps, orgId);
    },
  }),
  defineRoute({
    method: "post",
    path: OPS,
    tag: "ops",
    summary: "Add an identity provider to an organisation (audited)",
    description: POST_DESCRIPTION,
    access: "operator",
    params: orgParams,
    body: identityProviderBody,
    responses: { 201: { description: "The new provider.", schema: savedProviderResponse } },
    errors: ["NOT_FOUND", ...SAVE_ERRORS, "IDENTITY_PROVIDER_LIMIT"],
    handler: async (ctx, { params: { orgId }, body }, deps) => {
      await organisationFound(deps, orgId);
      await saveProviderSettings(ctx, deps, orgId, { kind: "new" }, body, principalOf(ctx).userId);
    },
  }),
  defineRoute({
    method: "get",
    path: `${OPS}/:providerId`,
    tag: "ops",
    summary: "One identity provider of an organisation",
    access: "operator",
    params: orgProviderParams,
    responses: { 200: { description: "The provider.", schema: savedProviderResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      ctx.body = await shownProvider(ctx, deps, params.orgId, params.providerId);
    },
  }),
  defineRoute({
    method: "put",
    path: `${OPS}/:providerId`,
    tag: "ops",
    summary: "Change an organisation's identity provider (audited)",
    description: PUT_DESCRIPTION,
    access: "operator",
    params: orgProviderParams,
    body: identityProviderBody,
    responses: { 200: { description: "The saved provider.", schema: savedProviderResponse } },
    errors: ["NOT_FOUND", ...SAVE_ERRORS],
    handler: async (ctx, { params, body }, deps) => {
      await saveProviderSettings(ctx, deps, params.orgId, { kind: "id", id: params.providerId }, body, principalOf(ctx).userId);
    },
  }),
  defineRoute({
    method: "delete",
    path: `${OPS}/:providerId`,
    tag: "ops",
    summary: "Remove an organisation's identity provider (audited)",
    access: "operator",
    params: orgProviderParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      await removeProviderSettings(ctx, deps, params.orgId, { kind: "id", id: params.providerId }, principalOf(ctx).userId);
    },
  }),
];

export const identityProvidersRoutes = [...adminRoutes, ...operatorRoutes];
