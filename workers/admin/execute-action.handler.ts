/**
 * `admin-actions`: runs a confirmed action's frozen items in order, a batch at a time, each item
 * in its own transaction (applied once; a re-run of a done item is a no-op). Progress goes to the
 * proposer's room after every batch, and the final status — completed, partial (with each failed
 * item and why) or failed — at the end. A worker killed mid-way leaves the job to be retried,
 * which resumes from the first undone item. Each item first checks that the action is still
 * running, under the action row's lock: once an admin stops it (commands/stop-action.ts, which
 * records the outcome and tells the card), no further item starts and the job ends quietly.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { announceActionDone } from "../../commands/action-done";
import { abandonActionRun, failActionItem } from "../../commands/action-run";
import { applyActionItem } from "../../commands/apply-action-item";
import { countItems, finishAction, nextPendingItems, recordProgress, startRunning } from "../../db/queries/admin-actions";
import { ItemRejected } from "../../lib/refusal";
import { jobFailureCode } from "../job-outcome";
import { defineHandler } from "../registry";

export const executeActionHandler = defineHandler({
  queue: "admin-actions",
  async perform({ data, deps, log }) {
    const action = await startRunning(deps.db, data.orgId, data.actionId);
    // Not confirmed (or already finished or stopped, seen by an earlier delivery of this job): nothing to do.
    if (!action) return { skipped: true };
    const emit = deps.events.appendAction.bind(deps.events, action.id, action.user_id);
    const { ADMIN_ACTION_BATCH_SIZE: batchSize, ADMIN_ACTION_BATCH_PAUSE_MS: pauseMs } = deps.config.admin;
    const stopped = () => {
      log.info({ actionId: action.id }, "admin action stopped; its remaining items were not run");
      return { status: "stopped" };
    };
    await emit("action_status", { status: "running" });
    for (;;) {
      const batch = await nextPendingItems(deps.db, data.orgId, action.id, batchSize);
      if (batch.length === 0) break;
      for (const item of batch) {
        try {
          if ((await applyActionItem(deps.db, action, item.id, { whileRunning: true, redis: deps.redis })) === "stopped") return stopped();
        } catch (error) {
          // The org changed under the item: record why and carry on. Anything else is a fault: retry the job.
          if (!(error instanceof ItemRejected)) throw error;
          if (!(await failActionItem(deps, { orgId: data.orgId, actionId: action.id, itemId: item.id, error: error.message }))) return stopped();
          log.info({ actionId: action.id, position: item.position, reason: error.message }, "action item could not run");
        }
      }
      const counts = await countItems(deps.db, data.orgId, action.id);
      if (!(await recordProgress(deps.db, data.orgId, action.id, counts))) return stopped();
      await emit("action_progress", counts);
      if (pauseMs > 0) await sleep(pauseMs);
    }
    const finished = await finishAction(deps.db, data.orgId, action.id);
    // A stop that landed after the last item finished the action itself, and announced it.
    if (!finished) return stopped();
    await announceActionDone(deps, finished);
    log.info({ actionId: action.id, status: finished.status, done: finished.done, failed: finished.failed }, "admin action finished");
    return { status: finished.status };
  },
  async onFailed({ data, deps }, error, { final }) {
    // A retry carries on from the first undone item. Out of attempts: the undone items fail with
    // the reason, so the admin sees a partial result and can resume (a stopped action stays as stopped).
    if (!final) return;
    // The admin reads this reason: a code, never the error's own text (an SQL statement, a stack).
    const reason = `not run: the run stopped on an error (${jobFailureCode(error)}); resume the action to run the remaining items`;
    const finished = await abandonActionRun(deps, { orgId: data.orgId, actionId: data.actionId, reason });
    if (finished) await announceActionDone(deps, finished);
  },
});
