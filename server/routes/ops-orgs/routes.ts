/**
 * The operator's organisations API: list, create (with the first admin), rename or re-quota, and
 * delete organisations, and follow a deletion. Operators only (admins of OPS_ORG); every change
 * goes through commands/organisations.ts, as the CLI's do, and is audited in the operator's own
 * organisation.
 */
import { changeOrganisation, createOrganisation, organisationNamed, requestOrganisationDeletion, type Operator } from "../../../commands/organisations";
import { latestOrgDeletion, type OrgDeletionRow } from "../../../db/queries/org-deletion";
import { listOrganisations, type OrganisationRow } from "../../../db/queries/organizations";
import type { Context } from "koa";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { defineRoute } from "../define-route";
import {
  createdOrgResponse,
  createOrgBody,
  deleteOrgQuery,
  deletionResponse,
  listOrgsQuery,
  orgParams,
  orgResponse,
  orgsResponse,
  updateOrgBody,
} from "./schema";

const TAG = "operator: organisations";

function operatorOf(ctx: Context): Operator {
  const { userId, orgId } = principalOf(ctx);
  return { via: "api", userId, orgId };
}

function presentOrganisation(org: OrganisationRow) {
  return {
    id: org.id,
    slug: org.slug,
    name: org.name,
    storage_quota_bytes: org.storage_quota_bytes,
    deleting_since: org.deleting_since?.toISOString() ?? null,
    created_at: new Date(org.created_at).toISOString(),
  };
}

function presentDeletion(deletion: OrgDeletionRow) {
  return {
    id: deletion.id,
    org_id: deletion.target_org_id,
    slug: deletion.slug,
    status: deletion.status,
    step: deletion.step,
    removed: deletion.counts,
    error: deletion.error,
    error_code: deletion.error_code,
    created_at: new Date(deletion.created_at).toISOString(),
    finished_at: deletion.finished_at ? new Date(deletion.finished_at).toISOString() : null,
  };
}

export const opsOrgRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs",
    tag: TAG,
    summary: "List organisations, oldest first, with how many people and documents each has",
    access: "operator",
    query: listOrgsQuery,
    responses: { 200: { description: "A page of organisations.", schema: orgsResponse } },
    handler: async (ctx, { query }, deps) => {
      const page = await listOrganisations(deps.db, query);
      ctx.body = {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        organisations: page.organisations.map((org) => ({ ...presentOrganisation(org), people: org.people, documents: org.documents })),
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/ops/orgs",
    tag: TAG,
    summary: "Create an organisation and its first admin (slug derived from the name when omitted)",
    access: "operator",
    body: createOrgBody,
    responses: { 201: { description: "Created.", schema: createdOrgResponse } },
    errors: ["SLUG_TAKEN", "EMAIL_TAKEN"],
    handler: async (ctx, { body }, deps) => {
      const { org, adminId } = await createOrganisation(deps, operatorOf(ctx), body);
      ctx.status = 201;
      ctx.body = { organisation: presentOrganisation(org), admin: { id: adminId, email: body.admin.email.trim().toLowerCase() } };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/v1/ops/orgs/:id",
    tag: TAG,
    summary: "Rename an organisation and/or set its storage quota (null: back to ORG_STORAGE_QUOTA_BYTES)",
    access: "operator",
    params: orgParams,
    body: updateOrgBody,
    responses: { 200: { description: "The organisation as it is now.", schema: orgResponse } },
    errors: ["NOT_FOUND", "ORGANISATION_DELETING"],
    handler: async (ctx, { params, body }, deps) => {
      ctx.body = { organisation: presentOrganisation(await changeOrganisation(deps, operatorOf(ctx), params.id, body)) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/ops/orgs/:id",
    tag: TAG,
    summary: "Delete an organisation and everything it owns (confirm with its slug); queued, follow it at …/deletion",
    description:
      "Its people are locked out at once; the `org-delete` job removes its jobs, vector indexes, Redis keys, rows and stored files. " +
      "Asking again while it runs answers the same deletion; after a failure it queues it again.",
    access: "operator",
    params: orgParams,
    query: deleteOrgQuery,
    responses: { 202: { description: "Queued (or already under way).", schema: deletionResponse } },
    errors: ["NOT_FOUND", "CONFIRMATION_MISMATCH", "OPERATOR_ORGANISATION", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params, query }, deps) => {
      const deletion = await requestOrganisationDeletion(deps, operatorOf(ctx), { org: params.id, confirm: query.confirm });
      ctx.status = 202;
      ctx.set("Location", `/api/v1/ops/orgs/${params.id}/deletion`);
      ctx.body = { deletion: presentDeletion(deletion) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs/:id/deletion",
    tag: TAG,
    summary: "How an organisation's deletion stands: status, step, what it removed so far",
    access: "operator",
    params: orgParams,
    responses: { 200: { description: "The organisation's latest deletion (kept after the organisation is gone).", schema: deletionResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      const deletion = await latestOrgDeletion(deps.db, params.id);
      if (!deletion) {
        await organisationNamed(deps, params.id);
        throw notFound("Deletion of this organisation");
      }
      ctx.body = { deletion: presentDeletion(deletion) };
    },
  }),
];
