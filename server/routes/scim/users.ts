/**
 * `/scim/v2/Users` (RFC 7644 §3): the organisation's people as its identity system provisions
 * them. Reads see everyone in the organisation that a SCIM DELETE has not removed; writes are
 * audited with the token as the actor; `active: false` and DELETE deactivate (refresh tokens
 * revoked, sockets cut at the next re-check), and DELETE hides the person from SCIM (404 after),
 * keeping their chats.
 */
import type { Context } from "koa";
import { createScimUser, deleteScimUser, updateScimUser } from "../../../commands/scim-users";
import { type ScimUserRow, USER_FILTER_COLUMNS, findScimUser, listScimUsers } from "../../../db/queries/scim-users";
import type { ServerDeps } from "../../deps";
import { parseScimFilter } from "../../scim/filter";
import { SCIMMY } from "../../scim/library";
import { attributesOf, listResponse, pageOf } from "../../scim/listing";
import { applyPatch } from "../../scim/patch";
import { scimCallerOf, scimEdge, sendScim } from "../../scim/request";
import { fromScimUser, parseScimUser, toScimUser } from "../../scim/user-resource";
import { defineRoute } from "../define-route";
import { notFound, resourceId } from "./ids";
import { scimGetQuery, scimIdParams, scimListQuery, scimListResponse, scimPatchOp, scimUser } from "./schema";

const FILTERABLE = Object.fromEntries(Object.entries(USER_FILTER_COLUMNS).map(([name, column]) => [name, { boolean: "boolean" in column }]));
const TAG = "scim";
const usersUrl = (baseUrl: string) => `${baseUrl}/Users`;

async function loadUser(ctx: Context, deps: ServerDeps, rawId: string): Promise<ScimUserRow> {
  const row = await findScimUser(deps.db, scimCallerOf(ctx).orgId, resourceId(rawId, "User"));
  if (!row) throw notFound("User", rawId);
  return row;
}

export const scimUserRoutes = [
  defineRoute({
    method: "get",
    path: "/scim/v2/Users",
    tag: TAG,
    summary: "List or find people (filter, startIndex, count)",
    access: "scim",
    use: scimEdge,
    query: scimListQuery,
    responses: { 200: { description: "A ListResponse.", schema: scimListResponse, contentType: "application/scim+json" } },
    handler: async (ctx, { query }, deps) => {
      const caller = scimCallerOf(ctx);
      const where = parseScimFilter(query.filter, FILTERABLE);
      const page = pageOf(query);
      const attributes = attributesOf(query);
      const { rows, total } = await listScimUsers(deps.db, caller.orgId, where, page);
      sendScim(
        ctx,
        200,
        listResponse(
          rows.map((row) => toScimUser(row, usersUrl(caller.baseUrl), attributes.filter)),
          total,
          page,
        ),
      );
    },
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/Users/:id",
    tag: TAG,
    summary: "One person",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    query: scimGetQuery,
    responses: { 200: { description: "The User.", schema: scimUser, contentType: "application/scim+json" } },
    handler: async (ctx, { params, query }, deps) => {
      const row = await loadUser(ctx, deps, params.id);
      sendScim(ctx, 200, toScimUser(row, usersUrl(scimCallerOf(ctx).baseUrl), attributesOf(query).filter));
    },
  }),
  defineRoute({
    method: "post",
    path: "/scim/v2/Users",
    tag: TAG,
    summary: "Provision a person (409 uniqueness when the address is anyone else's)",
    access: "scim",
    use: scimEdge,
    body: scimUser,
    responses: { 201: { description: "The created User (Location header).", schema: scimUser, contentType: "application/scim+json" } },
    handler: async (ctx, _input, deps) => {
      const caller = scimCallerOf(ctx);
      const fields = fromScimUser(parseScimUser(ctx.request.body), "create");
      const row = await createScimUser(deps, caller.orgId, fields, caller.actor);
      const user = toScimUser(row, usersUrl(caller.baseUrl));
      ctx.set("Location", `${usersUrl(caller.baseUrl)}/${row.id}`);
      sendScim(ctx, 201, user);
    },
  }),
  defineRoute({
    method: "put",
    path: "/scim/v2/Users/:id",
    tag: TAG,
    summary: "Replace a person's attributes (attributes left out keep their value)",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    body: scimUser,
    responses: { 200: { description: "The User after the change.", schema: scimUser, contentType: "application/scim+json" } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      const sent = parseScimUser(ctx.request.body);
      const row = await updateScimUser(deps, caller.orgId, resourceId(params.id, "User"), async (current) => fromScimUser(sent, "put", current), caller.actor);
      if (!row) throw notFound("User", params.id);
      sendScim(ctx, 200, toScimUser(row, usersUrl(caller.baseUrl)));
    },
  }),
  defineRoute({
    method: "patch",
    path: "/scim/v2/Users/:id",
    tag: TAG,
    summary: "Patch a person (Okta's and Entra ID's PatchOp forms; active false deactivates)",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    body: scimPatchOp,
    responses: { 200: { description: "The User after the change.", schema: scimUser, contentType: "application/scim+json" } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      const row = await updateScimUser(
        deps,
        caller.orgId,
        resourceId(params.id, "User"),
        async (current) => {
          const patched = await applyPatch(SCIMMY.Schemas.User, toScimUser(current, usersUrl(caller.baseUrl)), ctx.request.body);
          return patched ? fromScimUser(patched, "patch", current) : null;
        },
        caller.actor,
      );
      if (!row) throw notFound("User", params.id);
      sendScim(ctx, 200, toScimUser(row, usersUrl(caller.baseUrl)));
    },
  }),
  defineRoute({
    method: "delete",
    path: "/scim/v2/Users/:id",
    tag: TAG,
    summary: "Remove a person: deactivated, out of every group, hidden from SCIM; their chats stay",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    responses: { 204: { description: "Removed." } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      if (!(await deleteScimUser(deps, caller.orgId, resourceId(params.id, "User"), caller.actor))) throw notFound("User", params.id);
      ctx.status = 204;
    },
  }),
];
