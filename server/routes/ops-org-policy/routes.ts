/**
 * An organisation's policy in the operator's API: read it, and change some of its limits (null
 * puts one back to the product's default). Operators only (admins of OPS_ORG); the change goes
 * through commands/organisation-policy.ts, as `npm run org -- policy set` does, and is audited.
 */
import type { Context } from "koa";
import { changeOrganisationPolicy, type PolicyView, showOrganisationPolicy } from "../../../commands/organisation-policy";
import type { Operator } from "../../../commands/organisations";
import { principalOf } from "../../auth/middleware";
import { defineRoute } from "../define-route";
import { policyBody, policyParams, policyResponse } from "./schema";

const TAG = "operator: organisations";

function operatorOf(ctx: Context): Operator {
  const { userId, orgId } = principalOf(ctx);
  return { via: "api", userId, orgId };
}

const present = (view: PolicyView) => ({ policy: { org_id: view.orgId, slug: view.slug, set: view.stored, effective: view.effective } });

export const opsOrgPolicyRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/ops/orgs/:id/policy",
    tag: TAG,
    summary: "An organisation's policy: its rate limits and the admin assistant's tool bounds, as set and as they apply",
    access: "operator",
    params: policyParams,
    responses: { 200: { description: "The policy.", schema: policyResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      ctx.body = present(await showOrganisationPolicy(deps, params.id));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/ops/orgs/:id/policy",
    tag: TAG,
    summary: "Change some limits of an organisation's policy (a number sets one, null puts it back to the default)",
    description: "Applies to the organisation's next request; names left out stay as they are. Audited as `organization.policy_changed`.",
    access: "operator",
    params: policyParams,
    body: policyBody,
    responses: { 200: { description: "The policy as it is now.", schema: policyResponse } },
    errors: ["NOT_FOUND", "ORGANISATION_DELETING"],
    handler: async (ctx, { params, body }, deps) => {
      ctx.body = present(await changeOrganisationPolicy(deps, operatorOf(ctx), params.id, body));
    },
  }),
];
