/**
 * An organisation's email domains, beside its identity provider: its admin claims one (pending,
 * with the TXT record to publish), verifies it (the record is looked up now), lists and removes
 * them; the operator lists and approves any organisation's. Only a verified domain does anything
 * (docs/single-sign-on.md, "Verifying your domain").
 */
import type { Context } from "koa";
import type { z } from "zod";
import { addDomain, approveDomain, removeDomain, verifyDomain } from "../../../commands/organisation-domains";
import { organisationExists } from "../../../db/queries/ai-allowance";
import { findOrganisationDomainById, listOrganisationDomains, type OrganisationDomainRow } from "../../../db/queries/organisation-domains";
import { Refusal } from "../../../lib/refusal";
import { challengeRecord } from "../../../lib/domain-txt";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { orgParams } from "../allowance/schema";
import { defineRoute } from "../define-route";
import { domainBody, domainParams, domainResponse, domainsResponse, type domainView } from "./domains-schema";

const TAG = "identity provider";
const BASE = "/api/v1/admin/identity-provider/domains";

export function presentDomain(row: OrganisationDomainRow): z.input<typeof domainView> {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    method: row.method,
    verified_at: row.verified_at ? new Date(row.verified_at).toISOString() : null,
    created_at: new Date(row.created_at).toISOString(),
    txt_record: challengeRecord(row.domain, row.token),
  };
}

function admin(ctx: Context): { orgId: string; actorId: string } {
  const principal = principalOf(ctx);
  return { orgId: principal.orgId, actorId: principal.userId };
}

/** The caller's organisation's domain with this id (another organisation's is 404 too). */
async function claimed(ctx: Context, deps: ServerDeps, id: string): Promise<{ orgId: string; actorId: string; domain: string }> {
  const caller = admin(ctx);
  const row = await findOrganisationDomainById(deps.db, caller.orgId, id);
  if (!row) throw Refusal.notFound("Domain");
  return { ...caller, domain: row.domain };
}

export const domainRoutes = [
  defineRoute({
    method: "get",
    path: BASE,
    tag: TAG,
    summary: "The organisation's email domains and whether each is verified",
    access: "admin",
    responses: { 200: { description: "Every domain claimed, pending or verified.", schema: domainsResponse } },
    handler: async (ctx, _input, deps) => {
      ctx.body = { domains: (await listOrganisationDomains(deps.db, principalOf(ctx).orgId)).map(presentDomain) };
    },
  }),
  defineRoute({
    method: "post",
    path: BASE,
    tag: TAG,
    summary: "Claim an email domain (pending until verified; audited)",
    description:
      "Answers the TXT record to publish in the domain's DNS. Refused for a public mail domain (`422 PUBLIC_EMAIL_DOMAIN`), a domain " +
      "another organisation has verified (`409 DOMAIN_CLAIMED`) or on which only another organisation has people (`409 DOMAIN_IN_USE`). " +
      "Claiming one already claimed answers it as it is.",
    access: "admin",
    body: domainBody,
    responses: { 201: { description: "The claim and its TXT record.", schema: domainResponse } },
    errors: ["PUBLIC_EMAIL_DOMAIN", "DOMAIN_CLAIMED", "DOMAIN_IN_USE"],
    handler: async (ctx, { body }, deps) => {
      const row = await addDomain(deps, { ...admin(ctx), domain: body.domain });
      ctx.status = 201;
      ctx.body = { domain: presentDomain(row) };
    },
  }),
  defineRoute({
    method: "post",
    path: `${BASE}/:id/verify`,
    tag: TAG,
    summary: "Verify a domain by its TXT record, looked up now (audited)",
    description:
      "Verified when `_skillnet-challenge.<domain>` holds `skillnet-domain-verification=<token>`. Otherwise it stays pending: " +
      "`409 DOMAIN_TXT_MISSING` (no such record yet) or `503 DNS_LOOKUP_FAILED` (DNS did not answer in time).",
    access: "admin",
    params: domainParams,
    responses: { 200: { description: "The domain, verified.", schema: domainResponse } },
    errors: ["NOT_FOUND", "DOMAIN_TXT_MISSING", "DNS_LOOKUP_FAILED", "DOMAIN_CLAIMED"],
    handler: async (ctx, { params }, deps) => {
      ctx.body = { domain: presentDomain(await verifyDomain(deps, await claimed(ctx, deps, params.id))) };
    },
  }),
  defineRoute({
    method: "delete",
    path: `${BASE}/:id`,
    tag: TAG,
    summary: "Give up a domain (audited); it no longer signs anyone in here",
    access: "admin",
    params: domainParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      await removeDomain(deps, await claimed(ctx, deps, params.id));
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs/:orgId/domains",
    tag: "ops",
    summary: "An organisation's email domains",
    access: "operator",
    params: orgParams,
    responses: { 200: { description: "Every domain claimed, pending or verified.", schema: domainsResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId } }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      ctx.body = { domains: (await listOrganisationDomains(deps.db, orgId)).map(presentDomain) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/ops/orgs/:orgId/domains/approve",
    tag: "ops",
    summary: "Approve an organisation's email domain: verified at once, by the operator (audited)",
    description:
      "For an organisation that cannot publish a TXT record, after checking out of band that the domain is theirs. Approves a domain " +
      "other organisations have people on (`DOMAIN_IN_USE` does not apply); never a public mail domain or one verified elsewhere.",
    access: "operator",
    params: orgParams,
    body: domainBody,
    responses: { 200: { description: "The domain, verified.", schema: domainResponse } },
    errors: ["NOT_FOUND", "PUBLIC_EMAIL_DOMAIN", "DOMAIN_CLAIMED"],
    handler: async (ctx, { params, body }, deps) => {
      const { userId, orgId } = principalOf(ctx);
      ctx.body = { domain: presentDomain(await approveDomain(deps, { via: "api", userId, orgId }, params.orgId, body.domain)) };
    },
  }),
];
