/**
 * A turn that ends without showing its answer (cancelled, failed for good, lost) leaves no
 * pending action behind: what it proposed is rejected with the reason, and the proposer's action
 * card hears it. A turn whose answer is stored keeps its proposal for the admin to decide.
 */
import { withdrawActionsOfTurn } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";

export async function withdrawProposals(
  deps: Pick<CommandDeps, "db" | "events">,
  turn: { orgId: string; turnId: string },
  reason: string,
  /** The admin whose turn it was, when one ended it (a sweep names nobody). */
  by?: string,
): Promise<void> {
  for (const withdrawn of await withdrawActionsOfTurn(deps.db, turn.orgId, turn.turnId, reason)) {
    await deps.events.appendAction(withdrawn.id, withdrawn.user_id, "action_status", { status: "rejected", ...(by ? { by } : {}) });
  }
}
