/**
 * Every HTTP route of the server, in one list: server/app.ts mounts it and the OpenAPI document
 * (GET /api/v1/openapi.json) is built from it. A route is added by defining it in its module.
 */
import { buildOpenApiDocument } from "../openapi/document";
import { adminActionRoutes } from "./admin/actions";
import { allowanceRoutes } from "./allowance/routes";
import { authRoutes } from "./auth";
import { catalogRoutes } from "./catalog/routes";
import { chatRoutes } from "./chat/routes";
import { chatAttachmentRoutes } from "./chat-attachments/routes";
import { defineRoute, type ApiRoute } from "./define-route";
import { documentRoutes } from "./documents/routes";
import { feedbackRoutes } from "./feedback/routes";
import { healthRoutes } from "./health";
import { domainRoutes } from "./identity-provider/domains";
import { identityProvidersRoutes } from "./identity-provider/providers";
import { identityProviderRoutes } from "./identity-provider/routes";
import { insightsRoutes } from "./insights/routes";
import { integrationDocumentRoutes } from "./integration-documents/routes";
import { integrationKeyRoutes } from "./integration-keys/routes";
import { usageRoutes } from "./insights/usage";
import { learningRoutes } from "./learning/routes";
import { meRoutes } from "./me";
import { opsRoutes } from "./ops";
import { opsOrgRoutes } from "./ops-orgs/routes";
import { opsOrgPolicyRoutes } from "./ops-org-policy/routes";
import { passageRoutes } from "./passages/routes";
import { peopleRoutes } from "./people/routes";
import { retentionRoutes } from "./retention/routes";
import { personDataRoutes } from "./person-data/routes";
import { samlRoutes } from "./saml/routes";
import { signInRoutes } from "./sign-in/routes";
import { scimRoutes } from "./scim/routes";

export const OPENAPI_PATH = "/api/v1/openapi.json";

/** The document depends on code, not config: built once per process, on first request. */
let openApiJson: string | undefined;

const openApiRoute = defineRoute({
  method: "get",
  path: OPENAPI_PATH,
  tag: "meta",
  summary: "This document (OpenAPI 3.1), generated from the route definitions and their zod schemas",
  access: "public",
  responses: { 200: { description: "The OpenAPI document." } },
  handler: (ctx) => {
    openApiJson ??= JSON.stringify(buildOpenApiDocument(API_ROUTES));
    ctx.type = "application/json";
    ctx.body = openApiJson;
  },
});

export const API_ROUTES: readonly ApiRoute[] = [
  ...authRoutes,
  ...signInRoutes,
  ...samlRoutes,
  ...meRoutes,
  ...learningRoutes,
  openApiRoute,
  ...healthRoutes,
  ...chatRoutes,
  ...chatAttachmentRoutes,
  ...feedbackRoutes,
  ...passageRoutes,
  ...documentRoutes,
  ...adminActionRoutes,
  ...allowanceRoutes,
  ...insightsRoutes,
  ...usageRoutes,
  ...catalogRoutes,
  ...peopleRoutes,
  ...personDataRoutes,
  ...integrationKeyRoutes,
  ...retentionRoutes,
  ...integrationDocumentRoutes,
  ...opsRoutes,
  ...identityProviderRoutes,
  ...identityProvidersRoutes,
  ...domainRoutes,
  ...opsOrgRoutes,
  ...opsOrgPolicyRoutes,
  ...scimRoutes,
];
