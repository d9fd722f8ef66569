/**
 * The AI allowance: `GET /api/v1/ai-allowance` for the caller's organisation (employees: whether
 * the tutor is paused and until when; admins: the figures), and the operator's settings per
 * organisation: its own monthly allowance and credit top-ups, both audited.
 */
import { addCredits, setMonthlyAllowance } from "../../../commands/ai-allowance";
import { allowanceState, organisationExists } from "../../../db/queries/ai-allowance";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { defineRoute } from "../define-route";
import { presentAllowance } from "./present";
import { adminView, allowanceResponse, orgParams, postCreditsBody, putAllowanceBody } from "./schema";

export const allowanceRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/ai-allowance",
    tag: "ai allowance",
    summary: "The caller's organisation's AI allowance this month",
    description: "Employees get whether the assistant is paused and until when; admins also get the figures.",
    access: "bearer",
    responses: { 200: { description: "The allowance.", schema: allowanceResponse } },
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      ctx.body = presentAllowance(await allowanceState(deps.db, principal.orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG), principal.role);
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/ops/orgs/:orgId/ai-allowance",
    tag: "ops",
    summary: "Set an organisation's own monthly token allowance (audited)",
    access: "operator",
    params: orgParams,
    body: putAllowanceBody,
    responses: { 200: { description: "The organisation's allowance after the change.", schema: adminView } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId }, body }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await setMonthlyAllowance(deps, { orgId, monthlyTokens: body.monthly_tokens, actorId: principalOf(ctx).userId });
      ctx.body = presentAllowance(await allowanceState(deps.db, orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG), "admin");
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/ops/orgs/:orgId/ai-credits",
    tag: "ops",
    summary: "Add credits to an organisation (audited)",
    access: "operator",
    params: orgParams,
    body: postCreditsBody,
    responses: { 201: { description: "The organisation's allowance after the top-up.", schema: adminView } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { orgId }, body }, deps) => {
      if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
      await addCredits(deps, { orgId, tokens: body.tokens, note: body.note, actorId: principalOf(ctx).userId });
      ctx.status = 201;
      ctx.body = presentAllowance(await allowanceState(deps.db, orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG), "admin");
    },
  }),
];
