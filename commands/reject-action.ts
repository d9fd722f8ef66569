/**
 * Rejecting a pending admin action (the actions API, or the admin's "no" or new request in the
 * chat): pending → rejected with the reason, announced to the proposer's action card. Nothing is
 * queued; a refused transition (already decided, expired, missing) changes nothing.
 */
import { rejectPendingAction, type Transition } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";

export async function rejectAction(deps: CommandDeps, request: { orgId: string; actionId: string; rejectedBy: string; reason: string }): Promise<Transition> {
  const rejected = await rejectPendingAction(deps.db, request.orgId, request.actionId, request.reason);
  if (rejected.ok) await deps.events.appendAction(rejected.action.id, rejected.action.user_id, "action_status", { status: "rejected", by: request.rejectedBy });
  return rejected;
}
