/**
 * The organisation admin's SCIM settings: the base URL to give the identity system, the token
 * (created or rotated here and shown once; revoked here), and what each provisioned group means.
 * Every change is audited with the admin as the actor.
 */
import { setGroupMapping } from "../../../commands/scim-groups";
import { type GroupSummary, groupSummaries } from "../../../db/queries/scim-groups";
import { replaceScimToken, revokeScimToken } from "../../../commands/scim-token";
import { findScimTokenOfOrg } from "../../../db/queries/scim-tokens";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { scimBaseUrl } from "../../scim/request";
import { defineRoute } from "../define-route";
import { groupMappingBody, groupParams, issuedScimToken, scimGroupSummary, scimSettings, type ScimGroupSummary } from "./admin-schema";

const TAG = "admin scim";

const presentGroup = (group: GroupSummary): ScimGroupSummary => ({
  id: group.id,
  display_name: group.display_name,
  external_id: group.external_id,
  mapping: group.mapping,
  member_count: group.member_count,
});

export const scimAdminRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/scim",
    tag: TAG,
    summary: "SCIM provisioning: base URL, whether a token exists (hint, created, last used), the groups and their mapping",
    access: "admin",
    responses: { 200: { description: "The settings.", schema: scimSettings } },
    handler: async (ctx, _input, deps) => {
      const { orgId } = principalOf(ctx);
      const [token, groups] = await Promise.all([findScimTokenOfOrg(deps.db, orgId), groupSummaries(deps.db, orgId)]);
      ctx.body = {
        base_url: scimBaseUrl(deps, ctx),
        token: token
          ? {
              hint: token.hint,
              created_at: token.created_at.toISOString(),
              created_by: token.created_by,
              last_used_at: token.last_used_at?.toISOString() ?? null,
            }
          : null,
        groups: groups.map(presentGroup),
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/scim/token",
    tag: TAG,
    summary: "Create the SCIM token, or rotate it (the old one stops working at once); the token is in this answer only",
    access: "admin",
    responses: { 201: { description: "The new token.", schema: issuedScimToken } },
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const { token, row, rotated } = await replaceScimToken(deps, { orgId: principal.orgId, actorId: principal.userId });
      ctx.set("Cache-Control", "no-store");
      ctx.status = 201;
      ctx.body = { token, hint: row.hint, created_at: row.created_at.toISOString(), rotated, base_url: scimBaseUrl(deps, ctx) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/admin/scim/token",
    tag: TAG,
    summary: "Revoke the SCIM token (provisioning stops until a new one is created)",
    access: "admin",
    responses: { 204: { description: "Revoked." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      if (!(await revokeScimToken(deps, { orgId: principal.orgId, actorId: principal.userId }))) throw notFound("SCIM token");
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/admin/scim/groups/:id/mapping",
    tag: TAG,
    summary: "What a provisioned group means: its members' department, the admin role, or nothing",
    description: "Members lose what the old mapping gave them and get what the new one gives, at once.",
    access: "admin",
    params: groupParams,
    body: groupMappingBody,
    responses: { 200: { description: "The group.", schema: scimGroupSummary } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params, body }, deps) => {
      const principal = principalOf(ctx);
      const group = await setGroupMapping(deps, { orgId: principal.orgId, groupId: params.id, mapping: body.mapping, actorId: principal.userId });
      if (!group) throw notFound("Group");
      const summary = (await groupSummaries(deps.db, principal.orgId)).find((g) => g.id === group.id);
      if (!summary) throw notFound("Group");
      ctx.body = presentGroup(summary);
    },
  }),
];
