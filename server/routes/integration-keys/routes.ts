/**
 * An organisation's integration keys for its admins (create one, shown once; list; revoke), and
 * the read endpoints an integration key calls: the organisation's people (people:read) and its AI
 * usage report (usage:read). The key names the organisation; see docs/integrations.md.
 */
import { createIntegrationKey, revokeIntegrationKey } from "../../../commands/integration-keys";
import { listIntegrationPeople } from "../../../db/queries/admin-people";
import { IntegrationKeyLimitReached, listIntegrationKeys, MAX_ACTIVE_INTEGRATION_KEYS, type IntegrationKeyRow } from "../../../db/queries/integration-keys";
import { Refusal } from "../../../lib/refusal";
import { integrationCallerOf } from "../../auth/integration-key";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { defineRoute } from "../define-route";
import { monthRange, usageQuery, usageResponse } from "../insights/schema";
import { usageReport } from "../insights/usage";
import {
  createdIntegrationKeyResponse,
  createIntegrationKeyBody,
  integrationKeyParams,
  integrationKeyResponse,
  integrationKeysResponse,
  integrationPeopleQuery,
  integrationPeopleResponse,
  type IntegrationKeyBody,
} from "./schema";

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

function presentKey(row: IntegrationKeyRow): IntegrationKeyBody {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    hint: row.hint,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_by: row.created_by,
  };
}

export const integrationKeyRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/admin/integration-keys",
    tag: "integrations",
    summary: "Create an integration key with some scopes; the key is in this answer only",
    description:
      `An organisation holds at most ${MAX_ACTIVE_INTEGRATION_KEYS} unrevoked, unexpired keys (409 INTEGRATION_KEY_LIMIT past it). ` +
      "A key works only while the admin who created it is an active admin of the organisation.",
    access: "admin",
    body: createIntegrationKeyBody,
    responses: { 201: { description: "Created: the key, once, and how it is listed.", schema: createdIntegrationKeyResponse } },
    errors: ["INTEGRATION_KEY_LIMIT"],
    handler: async (ctx, { body }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      const { key, row } = await createIntegrationKey(deps, {
        orgId,
        name: body.name,
        scopes: body.scopes,
        expiresAt: body.expires_at ? new Date(body.expires_at) : null,
        createdBy: userId,
      }).catch((error: unknown) => {
        if (!(error instanceof IntegrationKeyLimitReached)) throw error;
        throw new Refusal(
          "conflict",
          "INTEGRATION_KEY_LIMIT",
          `Your organisation already has ${error.active} active integration keys, the most it may hold; revoke one it no longer uses first.`,
          { limit: MAX_ACTIVE_INTEGRATION_KEYS },
        );
      });
      ctx.status = 201;
      ctx.body = { key, integration_key: presentKey(row) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/integration-keys",
    tag: "integrations",
    summary: "The organisation's integration keys, newest first, revoked ones included (never the keys themselves)",
    access: "admin",
    responses: { 200: { description: "The keys.", schema: integrationKeysResponse } },
    handler: async (ctx, _input, deps) => {
      const rows = await listIntegrationKeys(deps.db, principalOf(ctx).orgId);
      ctx.body = { integration_keys: rows.map((row) => ({ ...presentKey(row), creator_is_admin: row.creator_is_admin })) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/admin/integration-keys/:id",
    tag: "integrations",
    summary: "Revoke an integration key: requests with it are refused from now on",
    access: "admin",
    params: integrationKeyParams,
    responses: { 200: { description: "The revoked key.", schema: integrationKeyResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      const row = await revokeIntegrationKey(deps, { orgId, keyId: id, actorId: userId });
      if (!row) throw notFound("Integration key");
      ctx.body = presentKey(row);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/integrations/people",
    tag: "integrations",
    summary: "The key's organisation's people, by name, page by offset",
    access: "integration",
    scope: "people:read",
    query: integrationPeopleQuery,
    responses: { 200: { description: "One page of people and how many there are.", schema: integrationPeopleResponse } },
    handler: async (ctx, { query }, deps) => {
      const { rows, total } = await listIntegrationPeople(deps.db, integrationCallerOf(ctx).orgId, query);
      const next = query.offset + rows.length;
      ctx.body = { people: rows, total, limit: query.limit, offset: query.offset, next_offset: next < total ? next : null };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/integrations/usage",
    tag: "integrations",
    summary: "The key's organisation's AI usage report of one month (as GET /api/v1/admin/usage)",
    access: "integration",
    scope: "usage:read",
    query: usageQuery,
    responses: { 200: { description: "The month's usage.", schema: usageResponse } },
    handler: async (ctx, { query }, deps) => {
      ctx.body = await usageReport(deps, integrationCallerOf(ctx).orgId, monthRange(query));
    },
  }),
];
