/**
 * Stopping a running admin action, and the writes of its run that must not cross a stop. The
 * stop is the action's status in Postgres, taken under the action row's lock: a stop takes the
 * row FOR UPDATE, every item of the run (and every failure it records) takes it FOR SHARE first
 * (`stillRunning`, admin-action-items.ts). So the stop waits for the item in flight, then no item
 * starts after it, on any worker, and a job redelivered after a crash finds the action stopped.
 * The counts the stop records are therefore final: done items stay done (and audited), the items
 * not started stay pending, and a resume runs exactly those.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { stillRunning } from "./admin-action-items";
import { type ActionStatus, type AdminActionRow, countItems, failedItemsOf, failPendingItems, finishAction } from "./admin-actions";

/** What a stop did: stopped the action (`stopped`), or found every item already run and finished it as the run would. */
export type StopTransition = { ok: true; action: AdminActionRow; stopped: boolean } | { ok: false; status: ActionStatus | "missing" };

const STOPPABLE: ActionStatus[] = ["confirmed", "running"];

async function lockAction(trx: Db, orgId: string, actionId: string): Promise<AdminActionRow | undefined> {
  return trx<AdminActionRow>("admin_actions").where({ id: actionId, org_id: orgId }).forUpdate().first();
}

/** confirmed/running → stopped by `stoppedBy`, with the items not yet started left pending. */
export async function stopRunningAction(trx: Knex.Transaction, orgId: string, actionId: string, stoppedBy: string): Promise<StopTransition> {
  // Waits for the item in flight to commit: from here on no item of this action can start.
  const row = await lockAction(trx, orgId, actionId);
  if (!row) return { ok: false as const, status: "missing" as const };
  if (!STOPPABLE.includes(row.status)) return { ok: false as const, status: row.status };
  const counts = await countItems(trx, orgId, actionId);
  const notRun = counts.total - counts.done - counts.failed;
  // The last item ran before the stop: the run is over, and ends as it would have.
  if (notRun === 0) return { ok: true as const, action: (await finishAction(trx, orgId, actionId))!, stopped: false };
  const failedItems = await failedItemsOf(trx, orgId, actionId);
  const [stopped]: AdminActionRow[] = await trx("admin_actions")
    .where({ id: actionId, org_id: orgId })
    .update({
      status: "stopped",
      done: counts.done,
      failed: counts.failed,
      summary: JSON.stringify({ failed_items: failedItems, stopped: { by: stoppedBy, at: new Date().toISOString(), not_run: notRun } }),
      finished_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    })
    .returning("*");
  return { ok: true as const, action: stopped!, stopped: true };
}

/** Records that an item could not run, unless the action was stopped first (then the item stays not run). */
export async function markItemFailed(trx: Knex.Transaction, orgId: string, actionId: string, itemId: string, error: string): Promise<boolean> {
  if (!(await stillRunning(trx, orgId, actionId))) return false;
  await trx("admin_action_items").where({ id: itemId, org_id: orgId, status: "pending" }).update({ status: "failed", error, updated_at: trx.fn.now() });
  return true;
}

/**
 * A run that ran out of attempts: its items still pending fail with `reason` and the action ends
 * partial or failed (resumable). A stopped action is left as the stop recorded it.
 */
export async function abandonRun(trx: Knex.Transaction, orgId: string, actionId: string, reason: string): Promise<AdminActionRow | undefined> {
  const row = await lockAction(trx, orgId, actionId);
  if (!row || !STOPPABLE.includes(row.status)) return undefined;
  await failPendingItems(trx, orgId, actionId, reason);
  return finishAction(trx, orgId, actionId);
}
