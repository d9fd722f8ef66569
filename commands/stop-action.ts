/**
 * Stopping a queued or running admin action, from the actions API, the card's Stop button or an
 * admin's "stop"/"para" in the chat. The item in flight finishes (the stop waits for it), the
 * items not started are not run and stay pending, what is done stays done and audited; the
 * action ends `stopped` and the card hears it at once, whether or not a worker is alive to see
 * the stop (admin-action-stop.ts says why the stop holds on every worker). A stop that finds
 * every item already run ends the action as the run would have (`finished`). Either way the
 * admin's stop records `admin_action.stopped` (with the status it ended in) in its transaction.
 */
import { recordAudit } from "../db/queries/audit-log";
import { stopRunningAction } from "../db/queries/admin-action-stop";
import type { AdminActionRow } from "../db/queries/admin-actions";
import { announceActionDone } from "./action-done";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";
import type { TransitionRefused } from "./transition-refused";

export type StopOutcome = { kind: "stopped" | "finished"; action: AdminActionRow } | TransitionRefused;

export async function stopAction(deps: CommandDeps, request: { orgId: string; actionId: string; stoppedBy: string }): Promise<StopOutcome> {
  const result = await withTransaction(deps, async (trx) => {
    const stop = await stopRunningAction(trx, request.orgId, request.actionId, request.stoppedBy);
    if (stop.ok)
      await recordAudit(trx, {
        name: "admin_action.stopped",
        orgId: request.orgId,
        actor: { type: "person", id: request.stoppedBy },
        target: { type: "admin_action", id: request.actionId },
        after: { status: stop.action.status, done: stop.action.done },
      });
    return stop;
  });
  if (!result.ok) return { kind: "refused", transition: result };
  // The stop is committed: a card that missed the event reads the stopped action on its next load.
  await announceActionDone(deps, result.action).catch((error: unknown) =>
    deps.log.warn({ err: error, actionId: request.actionId }, "could not announce a stop"),
  );
  deps.log.info({ actionId: result.action.id, status: result.action.status, done: result.action.done, stoppedBy: request.stoppedBy }, "admin action stopped");
  return { kind: result.stopped ? "stopped" : "finished", action: result.action };
}
