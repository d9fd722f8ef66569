/**
 * The admin actions API: list and inspect the assistant's proposals, and confirm, reject or
 * resume one. Admins only; everything is scoped to the caller's org (another org's action is
 * 404). A transition that is not possible any more (confirmed twice, rejected, expired) is a 409
 * that changes nothing.
 */
import Router from "@koa/router";
import {
  confirmPendingAction,
  failPendingItems,
  findAction,
  finishAction,
  listActionItems,
  listActions,
  rejectPendingAction,
  reopenForResume,
  undoConfirmation,
  type Transition,
} from "../../../db/queries/admin-actions";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import { HttpError, notFound } from "../../errors";
import type { ServerDeps } from "../../deps";
import { parseInput } from "../../validation";
import { presentAction, presentItem } from "./present";
import { actionParams, listActionsQuery } from "./schema";

function refused(transition: Extract<Transition, { ok: false }>, wanted: string): HttpError {
  if (transition.status === "missing") return notFound("Admin action");
  if (transition.status === "expired")
    return new HttpError(
      409,
      "ACTION_EXPIRED",
      `This action expired before it was confirmed; it cannot ${wanted}. Ask the assistant again for a fresh proposal.`,
      { status: "expired" },
    );
  return new HttpError(409, "ACTION_NOT_PENDING", `This action is ${transition.status}; it cannot ${wanted}.`, { status: transition.status });
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
    const confirmed = await confirmPendingAction(deps.db, principal.orgId, id, principal.userId);
    if (!confirmed.ok) throw refused(confirmed, "be confirmed");
    const action = confirmed.action;
    try {
      // Announced before queueing, so "confirmed" always precedes the worker's "running".
      await deps.events.appendAction(action.id, action.user_id, "action_status", { status: "confirmed", by: principal.userId });
      await deps.producer.enqueueAdminAction({ orgId: action.org_id, actionId: action.id, userId: action.user_id, run: action.runs });
    } catch (error) {
      deps.log.error({ err: error, actionId: id }, "could not queue a confirmed action; back to pending");
      await undoConfirmation(deps.db, principal.orgId, id);
      await deps.events.appendAction(action.id, action.user_id, "action_status", { status: "pending" }).catch(() => undefined);
      throw new HttpError(503, "QUEUE_UNAVAILABLE", "The action queue is unavailable; the action is still pending. Retry the confirmation shortly.");
    }
    ctx.status = 202;
    ctx.body = { action: presentAction(action) };
  });

  router.post("/:id/reject", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const rejected = await rejectPendingAction(deps.db, principal.orgId, id, "rejected by the admin");
    if (!rejected.ok) throw refused(rejected, "be rejected");
    await deps.events.appendAction(id, rejected.action.user_id, "action_status", { status: "rejected", by: principal.userId });
    ctx.body = { action: presentAction(rejected.action) };
  });

  router.post("/:id/resume", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(actionParams, ctx.params, "params");
    const reopened = await reopenForResume(deps.db, principal.orgId, id, principal.userId);
    if (!reopened.ok) {
      if (reopened.status === "missing") throw notFound("Admin action");
      if (reopened.status === "expired")
        throw new HttpError(
          409,
          "ACTION_EXPIRED",
          "This action is past its expiry; its frozen targets may no longer match the organisation. Ask the assistant for a fresh proposal.",
          { status: "expired" },
        );
      throw new HttpError(409, "ACTION_NOT_RESUMABLE", `Only a partial or failed action can be resumed; this one is ${reopened.status}.`, {
        status: reopened.status,
      });
    }
    const action = reopened.action;
    try {
      await deps.producer.enqueueAdminAction({ orgId: action.org_id, actionId: action.id, userId: action.user_id, run: action.runs });
    } catch (error) {
      // Back to where it was: the items fail again and the action is partial/failed, resumable later.
      deps.log.error({ err: error, actionId: id }, "could not queue a resumed action; left resumable");
      await failPendingItems(deps.db, principal.orgId, id, "not run: the action queue was unavailable");
      await finishAction(deps.db, principal.orgId, id);
      throw new HttpError(503, "QUEUE_UNAVAILABLE", "The action queue is unavailable; nothing ran. Retry the resume shortly.");
    }
    ctx.status = 202;
    ctx.body = { action: presentAction(action) };
  });

  return router;
}
