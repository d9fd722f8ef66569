/**
 * The SCIM discovery documents (RFC 7644 §4): what this service provider supports, the schemas
 * of its resources and its resource types, all produced by the SCIM library from the one
 * configuration in server/scim/library.ts. Behind the SCIM token like the rest of `/scim/v2`.
 */
import { SCIMMY } from "../../scim/library";
import { scimEdge, sendScim } from "../../scim/request";
import { defineRoute } from "../define-route";
import { scimDocument, scimIdParams } from "./schema";

const TAG = "scim";
const document = { description: "The document.", schema: scimDocument, contentType: "application/scim+json" };

export const scimDiscoveryRoutes = [
  defineRoute({
    method: "get",
    path: "/scim/v2/ServiceProviderConfig",
    tag: TAG,
    summary: "What this SCIM service supports (PATCH, filters up to 200 results; no bulk, sort or ETags)",
    access: "scim",
    use: scimEdge,
    responses: { 200: document },
    handler: async (ctx) => sendScim(ctx, 200, await new SCIMMY.Resources.ServiceProviderConfig().read()),
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/Schemas",
    tag: TAG,
    summary: "The User (with the enterprise extension) and Group schemas",
    access: "scim",
    use: scimEdge,
    responses: { 200: document },
    handler: async (ctx) => sendScim(ctx, 200, await new SCIMMY.Resources.Schema().read()),
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/Schemas/:id",
    tag: TAG,
    summary: "One schema, by its URN",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    responses: { 200: document },
    handler: async (ctx, { params }) => sendScim(ctx, 200, await new SCIMMY.Resources.Schema(params.id).read()),
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/ResourceTypes",
    tag: TAG,
    summary: "The resource types: User and Group",
    access: "scim",
    use: scimEdge,
    responses: { 200: document },
    handler: async (ctx) => sendScim(ctx, 200, await new SCIMMY.Resources.ResourceType().read()),
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/ResourceTypes/:id",
    tag: TAG,
    summary: "One resource type",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    responses: { 200: document },
    handler: async (ctx, { params }) => sendScim(ctx, 200, await new SCIMMY.Resources.ResourceType(params.id).read()),
  }),
];
