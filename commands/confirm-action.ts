/**
 * Confirming a pending admin action, from the actions API or from an admin's "yes" in the chat:
 * pending → confirmed, announced to the proposer's action card, then queued for execution. A
 * queue that refuses puts the action back to pending (announced too) and the command fails with
 * QUEUE_UNAVAILABLE, so nothing is left confirmed that no job will run.
 */
import { confirmPendingAction, undoConfirmation, type AdminActionRow } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";
import { queueActionRun } from "./queue-action-run";
import type { TransitionRefused } from "./transition-refused";

export type ConfirmOutcome = { kind: "confirmed"; action: AdminActionRow } | TransitionRefused;

export async function confirmAction(deps: CommandDeps, request: { orgId: string; actionId: string; confirmerId: string }): Promise<ConfirmOutcome> {
  const { orgId, actionId, confirmerId } = request;
  const confirmed = await confirmPendingAction(deps.db, orgId, actionId, confirmerId);
  if (!confirmed.ok) return { kind: "refused", transition: confirmed };
  const action = confirmed.action;
  const announce = (status: "confirmed" | "pending") =>
    deps.events.appendAction(action.id, action.user_id, "action_status", status === "confirmed" ? { status, by: confirmerId } : { status });
  await queueActionRun(
    deps,
    action,
    {
      log: "could not queue a confirmed action; back to pending",
      message: "The action queue is unavailable; the action is still pending. Retry the confirmation shortly.",
      async undo() {
        await undoConfirmation(deps.db, orgId, actionId);
        await announce("pending").catch(() => undefined);
      },
    },
    // Announced before queueing, so "confirmed" always precedes the worker's "running".
    () => announce("confirmed"),
  );
  return { kind: "confirmed", action };
}
