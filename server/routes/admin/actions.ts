/**
 * The admin actions API: list and inspect the assistant's proposals, and confirm, reject, stop or
 * resume one. Admins only; everything is scoped to the caller's org (another org's action is
 * 404). A transition that is not possible any more (confirmed twice, rejected, expired) is a 409
 * that changes nothing.
 */
import { confirmAction } from "../../../commands/confirm-action";
import { rejectAction } from "../../../commands/reject-action";
import { resumeAction } from "../../../commands/resume-action";
import { stopAction } from "../../../commands/stop-action";
import { findAction, listActionItems, listActions, type Transition } from "../../../db/queries/admin-actions";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import { actionDetailResponse, actionResponse, actionsResponse } from "../../openapi/responses";
import { defineRoute } from "../define-route";
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

export const adminActionRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/actions",
    tag: "admin actions",
    summary: "List the organisation's admin actions, newest first",
    access: "admin",
    query: listActionsQuery,
    responses: { 200: { description: "The actions.", schema: actionsResponse } },
    handler: async (ctx, { query }, deps) => {
      const actions = await listActions(deps.db, principalOf(ctx).orgId, query);
      ctx.body = { actions: actions.map(presentAction) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/actions/:id",
    tag: "admin actions",
    summary: "One action with its items (status, before and after)",
    access: "admin",
    params: actionParams,
    responses: { 200: { description: "The action and its items.", schema: actionDetailResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const { orgId } = principalOf(ctx);
      const action = await findAction(deps.db, orgId, id);
      if (!action) throw notFound("Admin action");
      const items = await listActionItems(deps.db, orgId, id);
      ctx.body = { action: presentAction(action), items: items.map(presentItem) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/actions/:id/confirm",
    tag: "admin actions",
    summary: "Confirm a pending action; it runs on the admin-actions queue",
    access: "admin",
    params: actionParams,
    responses: { 202: { description: "Confirmed and queued.", schema: actionResponse } },
    errors: ["NOT_FOUND", "ACTION_NOT_PENDING", "ACTION_EXPIRED", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      const confirmed = await confirmAction(deps, { orgId: principal.orgId, actionId: id, confirmerId: principal.userId });
      if (confirmed.kind === "refused") throw refused(confirmed.transition, "be confirmed");
      ctx.status = 202;
      ctx.body = { action: presentAction(confirmed.action) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/actions/:id/reject",
    tag: "admin actions",
    summary: "Reject a pending action; nothing changes",
    access: "admin",
    params: actionParams,
    responses: { 200: { description: "Rejected.", schema: actionResponse } },
    errors: ["NOT_FOUND", "ACTION_NOT_PENDING", "ACTION_EXPIRED"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      const rejected = await rejectAction(deps, { orgId: principal.orgId, actionId: id, rejectedBy: principal.userId, reason: "rejected by the admin" });
      if (!rejected.ok) throw refused(rejected, "be rejected");
      ctx.body = { action: presentAction(rejected.action) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/actions/:id/resume",
    tag: "admin actions",
    summary: "Run the undone items of a partial or failed action again",
    access: "admin",
    params: actionParams,
    responses: { 202: { description: "Queued.", schema: actionResponse } },
    errors: ["NOT_FOUND", "ACTION_NOT_RESUMABLE", "ACTION_EXPIRED", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
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
        throw new Refusal("conflict", "ACTION_NOT_RESUMABLE", `Only a partial, failed or stopped action can be resumed; this one is ${status}.`, { status });
      }
      ctx.status = 202;
      ctx.body = { action: presentAction(resumed.action) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/actions/:id/stop",
    tag: "admin actions",
    summary: "Stop a queued or running action: the item in flight finishes, the rest are not run (resume runs them)",
    access: "admin",
    params: actionParams,
    responses: { 200: { description: "Stopped (`stopped`, with `not_run`), or finished already if its last item ran first.", schema: actionResponse } },
    errors: ["NOT_FOUND", "ACTION_NOT_RUNNING"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      const stopped = await stopAction(deps, { orgId: principal.orgId, actionId: id, stoppedBy: principal.userId });
      if (stopped.kind === "refused") {
        const { status } = stopped.transition;
        if (status === "missing") throw notFound("Admin action");
        throw new Refusal("conflict", "ACTION_NOT_RUNNING", `Only a queued or running action can be stopped; this one is ${status}.`, { status });
      }
      ctx.body = { action: presentAction(stopped.action) };
    },
  }),
];
