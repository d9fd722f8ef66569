/**
 * The AI allowance: `GET /api/v1/ai-allowance` for the caller's organisation (employees: whether
 * the tutor is paused and until when; admins: the figures), and the operator's settings per
 * organisation: its own monthly allowance and credit top-ups, both audited.
 */
import Router from "@koa/router";
import { addCredits, allowanceState, organisationExists, setMonthlyAllowance } from "../../../db/queries/ai-allowance";
import { principalOf, requireAuth } from "../../auth/middleware";
import { requireOperator } from "../../auth/operator";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { parseInput } from "../../validation";
import { presentAllowance } from "./present";
import { orgParams, postCreditsBody, putAllowanceBody } from "./schema";

export function allowanceRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1" });
  const defaultTokens = deps.config.AI_MONTHLY_TOKENS_PER_ORG;

  router.get("/ai-allowance", requireAuth(deps), async (ctx) => {
    const principal = principalOf(ctx);
    ctx.body = presentAllowance(await allowanceState(deps.db, principal.orgId, defaultTokens), principal.role);
  });

  const operatorOnly = [requireAuth(deps), requireOperator(deps)];

  router.put("/ops/orgs/:orgId/ai-allowance", ...operatorOnly, async (ctx) => {
    const { orgId } = parseInput(orgParams, ctx.params, "params");
    const body = parseInput(putAllowanceBody, ctx.request.body ?? {}, "body");
    if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
    await setMonthlyAllowance(deps.db, { orgId, monthlyTokens: body.monthly_tokens, actorId: principalOf(ctx).userId });
    ctx.body = presentAllowance(await allowanceState(deps.db, orgId, defaultTokens), "admin");
  });

  router.post("/ops/orgs/:orgId/ai-credits", ...operatorOnly, async (ctx) => {
    const { orgId } = parseInput(orgParams, ctx.params, "params");
    const body = parseInput(postCreditsBody, ctx.request.body ?? {}, "body");
    if (!(await organisationExists(deps.db, orgId))) throw notFound("Organisation");
    await addCredits(deps.db, { orgId, tokens: body.tokens, note: body.note, actorId: principalOf(ctx).userId });
    ctx.status = 201;
    ctx.body = presentAllowance(await allowanceState(deps.db, orgId, defaultTokens), "admin");
  });

  return router;
}
