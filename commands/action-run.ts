/**
 * What the assistant's action run records besides its items (each item is
 * commands/apply-action-item.ts): a proposal stored pending with its frozen items, an item that
 * could not run, and a run that ran out of attempts. Each is one transaction of its own. The
 * proposal records `admin_action.proposed` (made for the admin whose turn asked); an item's failure
 * and an abandoned run are the run's own progress, not anyone's decision, and record nothing (what
 * was applied is `admin_action.item_applied`).
 */
import { recordAudit } from "../db/queries/audit-log";
import { abandonRun, markItemFailed } from "../db/queries/admin-action-stop";
import { type AdminActionRow, createPendingAction, type NewAction } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

type RunDeps = Pick<CommandDeps, "db">;

/** The proposal and its frozen items, pending the admin's confirmation. */
export function proposeAction(deps: RunDeps, action: NewAction): Promise<AdminActionRow> {
  return withTransaction(deps, async (trx) => {
    const row = await createPendingAction(trx, action);
    await recordAudit(trx, {
      name: "admin_action.proposed",
      orgId: action.orgId,
      actor: { type: "person", id: action.userId },
      target: { type: "admin_action", id: row.id },
      after: { status: row.status, tool: action.tool, items: action.items.length },
    });
    return row;
  });
}

/** Records that an item could not run; false when the action was stopped first (then the item stays not run). */
export function failActionItem(deps: RunDeps, request: { orgId: string; actionId: string; itemId: string; error: string }): Promise<boolean> {
  return withTransaction(deps, (trx) => markItemFailed(trx, request.orgId, request.actionId, request.itemId, request.error));
}

/** A run out of attempts: its pending items fail with `reason` and the action ends partial or failed (resumable). */
export function abandonActionRun(deps: RunDeps, request: { orgId: string; actionId: string; reason: string }): Promise<AdminActionRow | undefined> {
  return withTransaction(deps, (trx) => abandonRun(trx, request.orgId, request.actionId, request.reason));
}
