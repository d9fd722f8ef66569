/**
 * The `action_done` event that ends a run of an admin action on its proposer's card: how it
 * ended, the counts, each failed item and why, and for a stop who stopped it and how many items
 * it left not run. The job that finishes a run and the command that stops one both send it, so
 * the card reads one shape whichever ended the run.
 */
import type { AdminActionRow } from "../db/queries/admin-actions";
import { actionSummary } from "../db/queries/json-columns";
import type { ACTION_END_STATUSES } from "../queues/events/contract";
import type { CommandDeps } from "./deps";

export async function announceActionDone(deps: Pick<CommandDeps, "events">, finished: AdminActionRow): Promise<void> {
  const summary = actionSummary.parse(finished.summary);
  const failedItems = (summary?.failed_items ?? []).map(({ position, label, error }) => ({ position, label, error }));
  const stopped = finished.status === "stopped" ? summary?.stopped : undefined;
  await deps.events.appendAction(finished.id, finished.user_id, "action_done", {
    status: finished.status as (typeof ACTION_END_STATUSES)[number],
    done: finished.done,
    failed: finished.failed,
    total: finished.total,
    notRun: stopped?.not_run ?? 0,
    ...(stopped ? { stoppedBy: stopped.by } : {}),
    failedItems,
  });
}
