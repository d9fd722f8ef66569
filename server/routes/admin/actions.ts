/**
 * The admin actions API: list and inspect the assistant's proposals, and confirm, reject or
 * resume one. Admins only; everything is scoped to the caller's org (another org's action is
 * 404). A transition that is not possible any more (confirmed twice, rejected, expired) is a 409
 * that changes nothing.
 */
import Router from "@koa/router";
import { confirmAction } from "../../../commands/confirm-action";
import { rejectAction } from "../../../commands/reject-action";
import { resumeAction } from "../../../commands/resume-action";
import { findAction, listActionItems, listActions, type Transition } from "../../../db/queries/admin-actions";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import type { ServerDeps } from "../../deps";
import { parseInput } from "../../validation";
import { presentAction, presentItem } from "./present";
import { actionParams, listActionsQuery } from "./schema";

function refused(transition: Extract<Transition, { ok: false }>, wanted: string): Refusal {
  if (transition.status === "missing") return notFound("Admin action");
  if (transition.status === "expired")
    return new Refusal(
      "conflict",
      "ACTION_EXPIRED",
      `This action expired before it was confirmed; it cannot ${wanted}. Ask the assistant again for a fresh proposal.`,
      { status: "expired" },
    );
  return new Refusal("conflict", "ACTION_NOT_PENDING", `This action is ${transition.status}; it cannot ${wanted}.`, { status: transition.status });
}

export function adminActionRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/admin/actions" });
  router.use(requireAuth(deps), requireRole("admin"));

  router.get("/", async (ctx) => {
    const { orgId } = principalOf(ctx);
    const query = parseInput(listActionsQuery, ctx.query, "query");
    const actions = await listActions(deps.db, orgId, query);
    ctx.body = { actions: actions.map(presentAction) };
  });

  router.get("/:id", async (ctx) => {
    const { orgId } = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const action = await findAction(deps.db, orgId, id);
    if (!action) throw notFound("Admin action");
    const items = await listActionItems(deps.db, orgId, id);
    ctx.body = { action: presentAction(action), items: items.map(presentItem) };
  });

  router.post("/:id/confirm", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const confirmed = await confirmAction(deps, { orgId: principal.orgId, actionId: id, confirmerId: principal.userId });
    if (confirmed.kind === "refused") throw refused(confirmed.transition, "be confirmed");
    ctx.status = 202;
    ctx.body = { action: presentAction(confirmed.action) };
  });

  router.post("/:id/reject", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const rejected = await rejectAction(deps, { orgId: principal.orgId, actionId: id, rejectedBy: principal.userId, reason: "rejected by the admin" });
    if (!rejected.ok) throw refused(rejected, "be rejected");
    ctx.body = { action: presentAction(rejected.action) };
  });

  router.post("/:id/resume", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const resumed = await resumeAction(deps, { orgId: principal.orgId, actionId: id, resumerId: principal.userId });
    if (resumed.kind === "refused") {
      const { status } = resumed.transition;
      if (status === "missing") throw notFound("Admin action");
      if (status === "expired")
        throw new Refusal(
          "conflict",
          "ACTION_EXPIRED",
          "This action is past its expiry; its frozen targets may no longer match the organisation. Ask the assistant for a fresh proposal.",
          { status: "expired" },
        );
      throw new Refusal("conflict", "ACTION_NOT_RESUMABLE", `Only a partial or failed action can be resumed; this one is ${status}.`, { status });
    }
    ctx.status = 202;
    ctx.body = { action: presentAction(resumed.action) };
  });

  return router;
}
