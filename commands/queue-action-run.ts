/**
 * Queues one run of a confirmed admin action (`admin-actions`, job id per run). When the queue
 * refuses, `undo` puts the action back where it was before this command, and the command fails
 * with QUEUE_UNAVAILABLE: an action is never left confirmed with no job to run it.
 */
import type { AdminActionRow } from "../db/queries/admin-actions";
import type { CommandDeps } from "./deps";
import { Refusal } from "../lib/refusal";

export async function queueActionRun(
  deps: CommandDeps,
  action: AdminActionRow,
  failure: { log: string; message: string; undo(): Promise<void> },
  /** What must happen before the job exists (an announcement); it failing undoes like the enqueue. */
  before?: () => Promise<unknown>,
): Promise<void> {
  try {
    await before?.();
    await deps.producer.enqueueAdminAction({ orgId: action.org_id, actionId: action.id, userId: action.user_id, run: action.runs });
  } catch (error) {
    deps.log.error({ err: error, actionId: action.id }, failure.log);
    await failure.undo();
    throw new Refusal("unavailable", "QUEUE_UNAVAILABLE", failure.message, undefined, { cause: error });
  }
}
