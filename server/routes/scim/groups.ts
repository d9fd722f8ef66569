/**
 * `/scim/v2/Groups`: the identity system's groups of the organisation and their members. What a
 * group means here (department, admin, nothing) is mapped by the organisation's admin
 * (`PUT /api/v1/admin/scim/groups/:id/mapping`) and applied to members as they join and leave.
 */
import type { Context } from "koa";
import { createScimGroup, deleteScimGroup, updateScimGroup } from "../../../commands/scim-groups";
import { GROUP_FILTER_COLUMNS, type ScimGroupRow, findScimGroup, listScimGroups, membersOfGroups } from "../../../db/queries/scim-groups";
import type { ServerDeps } from "../../deps";
import { parseScimFilter } from "../../scim/filter";
import { fromScimGroup, parseScimGroup, toScimGroup } from "../../scim/group-resource";
import { SCIMMY } from "../../scim/library";
import { type AttributeSelection, attributesOf, listResponse, pageOf } from "../../scim/listing";
import { applyPatch } from "../../scim/patch";
import { type ScimCaller, scimCallerOf, scimEdge, sendScim } from "../../scim/request";
import { defineRoute } from "../define-route";
import { notFound, resourceId } from "./ids";
import { scimGetQuery, scimGroup, scimIdParams, scimListQuery, scimListResponse, scimPatchOp } from "./schema";

const FILTERABLE = { ...Object.fromEntries(Object.keys(GROUP_FILTER_COLUMNS).map((name) => [name, {}])), "members.value": {} };
const TAG = "scim";
const groupsUrl = (baseUrl: string) => `${baseUrl}/Groups`;

async function present(deps: ServerDeps, caller: ScimCaller, rows: ScimGroupRow[], attributes?: AttributeSelection) {
  const members =
    attributes && !attributes.includes("members")
      ? undefined
      : await membersOfGroups(
          deps.db,
          caller.orgId,
          rows.map((row) => row.id),
        );
  return rows.map((row) => toScimGroup(row, members?.get(row.id), groupsUrl(caller.baseUrl), attributes?.filter));
}

async function loadGroup(ctx: Context, deps: ServerDeps, rawId: string): Promise<ScimGroupRow> {
  const row = await findScimGroup(deps.db, scimCallerOf(ctx).orgId, resourceId(rawId, "Group"));
  if (!row) throw notFound("Group", rawId);
  return row;
}

export const scimGroupRoutes = [
  defineRoute({
    method: "get",
    path: "/scim/v2/Groups",
    tag: TAG,
    summary: "List or find groups (filter, startIndex, count, excludedAttributes=members)",
    access: "scim",
    use: scimEdge,
    query: scimListQuery,
    responses: { 200: { description: "A ListResponse.", schema: scimListResponse, contentType: "application/scim+json" } },
    handler: async (ctx, { query }, deps) => {
      const caller = scimCallerOf(ctx);
      const page = pageOf(query);
      const { rows, total } = await listScimGroups(deps.db, caller.orgId, parseScimFilter(query.filter, FILTERABLE), page);
      sendScim(ctx, 200, listResponse(await present(deps, caller, rows, attributesOf(query)), total, page));
    },
  }),
  defineRoute({
    method: "get",
    path: "/scim/v2/Groups/:id",
    tag: TAG,
    summary: "One group with its members",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    query: scimGetQuery,
    responses: { 200: { description: "The Group.", schema: scimGroup, contentType: "application/scim+json" } },
    handler: async (ctx, { params, query }, deps) => {
      const [group] = await present(deps, scimCallerOf(ctx), [await loadGroup(ctx, deps, params.id)], attributesOf(query));
      sendScim(ctx, 200, group);
    },
  }),
  defineRoute({
    method: "post",
    path: "/scim/v2/Groups",
    tag: TAG,
    summary: "Create a group (displayName unique in the organisation)",
    access: "scim",
    use: scimEdge,
    body: scimGroup,
    responses: { 201: { description: "The created Group (Location header).", schema: scimGroup, contentType: "application/scim+json" } },
    handler: async (ctx, _input, deps) => {
      const caller = scimCallerOf(ctx);
      const row = await createScimGroup(deps, caller.orgId, fromScimGroup(parseScimGroup(ctx.request.body), "create"), caller.actor);
      ctx.set("Location", `${groupsUrl(caller.baseUrl)}/${row.id}`);
      const [group] = await present(deps, caller, [row]);
      sendScim(ctx, 201, group);
    },
  }),
  defineRoute({
    method: "put",
    path: "/scim/v2/Groups/:id",
    tag: TAG,
    summary: "Replace a group (members, when given, are the whole new list)",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    body: scimGroup,
    responses: { 200: { description: "The Group after the change.", schema: scimGroup, contentType: "application/scim+json" } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      const sent = parseScimGroup(ctx.request.body);
      const row = await updateScimGroup(
        deps,
        caller.orgId,
        resourceId(params.id, "Group"),
        async (current) => fromScimGroup(sent, "put", current),
        caller.actor,
      );
      if (!row) throw notFound("Group", params.id);
      const [group] = await present(deps, caller, [row]);
      sendScim(ctx, 200, group);
    },
  }),
  defineRoute({
    method: "patch",
    path: "/scim/v2/Groups/:id",
    tag: TAG,
    summary: "Patch a group: rename, members add/remove (Okta's and Entra ID's forms)",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    body: scimPatchOp,
    responses: { 204: { description: "Patched (GET the group to read it back)." } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      const row = await updateScimGroup(
        deps,
        caller.orgId,
        resourceId(params.id, "Group"),
        async (current, members) => {
          const patched = await applyPatch(SCIMMY.Schemas.Group, toScimGroup(current, members, groupsUrl(caller.baseUrl)), ctx.request.body);
          return patched ? fromScimGroup(patched, "patch", current) : null;
        },
        caller.actor,
      );
      if (!row) throw notFound("Group", params.id);
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "delete",
    path: "/scim/v2/Groups/:id",
    tag: TAG,
    summary: "Remove a group; its members lose what its mapping gave them",
    access: "scim",
    use: scimEdge,
    params: scimIdParams,
    responses: { 204: { description: "Removed." } },
    handler: async (ctx, { params }, deps) => {
      const caller = scimCallerOf(ctx);
      if (!(await deleteScimGroup(deps, caller.orgId, resourceId(params.id, "Group"), caller.actor))) throw notFound("Group", params.id);
      ctx.status = 204;
    },
  }),
];
