/** The public shape of an admin action and its items (snake_case, like the rest of the API). */
import type { ActionItemRow, AdminActionRow } from "../../../db/queries/admin-actions";
import { actionSummary } from "../../../db/queries/json-columns";

export function presentAction(action: AdminActionRow) {
  // Only a stopped action reports its stop: a resumed one keeps the summary until its run ends.
  const stopped = action.status === "stopped" ? actionSummary.parse(action.summary)?.stopped : undefined;
  return {
    id: action.id,
    tool: action.tool,
    status: action.status,
    preview: action.preview,
    args: action.args,
    estimate: action.estimate,
    total: action.total,
    done: action.done,
    failed: action.failed,
    not_run: stopped?.not_run ?? 0,
    stopped_by: stopped?.by ?? null,
    stopped_at: stopped?.at ?? null,
    proposed_by: action.user_id,
    session_id: action.session_id,
    turn_id: action.turn_id,
    confirmed_by: action.confirmed_by,
    confirmed_at: action.confirmed_at,
    expires_at: action.expires_at,
    finished_at: action.finished_at,
    runs: action.runs,
    created_at: action.created_at,
  };
}

export function presentItem(item: ActionItemRow) {
  return { position: item.position, label: item.label, status: item.status, error: item.error, target: item.target, before: item.before, after: item.after };
}
