/**
 * Resuming a partial or failed admin action: its failed items go back to pending and a new run
 * is queued; the reopening records `admin_action.resumed` in its transaction. A queue that
 * refuses puts it back (the items fail again with the reason and the action is partial or
 * failed, resumable later), recorded as `admin_action.resume_failed` in that undo's transaction,
 * so the log never shows a resume that ran nothing as the last word; the command fails with
 * QUEUE_UNAVAILABLE.
 */
import { recordAudit } from "../db/queries/audit-log";
import { failPendingItems, finishAction, reopenForResume, type AdminActionRow } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";
import { queueActionRun } from "./queue-action-run";
import { withTransaction } from "./transaction";
import type { TransitionRefused } from "./transition-refused";

export type ResumeOutcome = { kind: "resumed"; action: AdminActionRow } | TransitionRefused;

export async function resumeAction(deps: CommandDeps, request: { orgId: string; actionId: string; resumerId: string }): Promise<ResumeOutcome> {
  const { orgId, actionId, resumerId } = request;
  const reopened = await withTransaction(deps, async (trx) => {
    const reopen = await reopenForResume(trx, orgId, actionId, resumerId);
    if (reopen.ok)
      await recordAudit(trx, {
        name: "admin_action.resumed",
        orgId,
        actor: { type: "person", id: resumerId },
        target: { type: "admin_action", id: actionId },
        after: { status: reopen.action.status },
      });
    return reopen;
  });
  if (!reopened.ok) return { kind: "refused", transition: reopened };
  await queueActionRun(deps, reopened.action, {
    log: "could not queue a resumed action; left resumable",
    message: "The action queue is unavailable; nothing ran. Retry the resume shortly.",
    async undo() {
      await withTransaction(deps, async (trx) => {
        await failPendingItems(trx, orgId, actionId, "not run: the action queue was unavailable");
        const finished = await finishAction(trx, orgId, actionId);
        // Nothing to record when the action had moved on meanwhile (a stop): this undo changed nothing then.
        if (finished)
          await recordAudit(trx, {
            name: "admin_action.resume_failed",
            orgId,
            actor: { type: "person", id: resumerId },
            target: { type: "admin_action", id: actionId },
            after: { status: finished.status },
            details: { reason: "queue_unavailable" },
          });
      });
    },
  });
  return { kind: "resumed", action: reopened.action };
}
