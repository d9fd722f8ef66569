/**
 * The end of a run of an admin action, told twice: the `action_done` event on its proposer's
 * card (how it ended, the counts, each failed item and why, and for a stop who stopped it and how
 * many items it left not run), and a message in the conversation that proposed it, so the next
 * turn and the session's summary know what really happened — not only the card. The job that
 * finishes a run and the command that stops one both call it, so both read one shape whichever
 * ended the run.
 */
import { createHash } from "node:crypto";
import { insertAssistantMessageOnce, latestAnswerLanguage } from "../db/queries/chat-messages";
import type { AdminActionRow } from "../db/queries/admin-actions";
import { actionSummary } from "../db/queries/json-columns";
import { isLanguageCode } from "../lib/language";
import { catalogLanguage } from "../lib/messages";
import { ACTION_OUTCOME_LINES } from "../lib/messages/action-outcome-lines";
import type { ACTION_END_STATUSES } from "../queues/events/contract";
import type { CommandDeps } from "./deps";

type EndStatus = (typeof ACTION_END_STATUSES)[number];

/** The failed items the conversation message names; the card lists them all. */
const NAMED_FAILURES = 3;

export async function announceActionDone(deps: Pick<CommandDeps, "events" | "db">, finished: AdminActionRow): Promise<void> {
  const summary = actionSummary.parse(finished.summary);
  const failedItems = (summary?.failed_items ?? []).map(({ position, label, error }) => ({ position, label, error }));
  const stopped = finished.status === "stopped" ? summary?.stopped : undefined;
  await deps.events.appendAction(finished.id, finished.user_id, "action_done", {
    status: finished.status as EndStatus,
    done: finished.done,
    failed: finished.failed,
    total: finished.total,
    notRun: stopped?.not_run ?? 0,
    ...(stopped ? { stoppedBy: stopped.by } : {}),
    failedItems,
  });
  await recordOutcomeInConversation(deps, finished, {
    notRun: stopped?.not_run ?? 0,
    failures: failedItems.slice(0, NAMED_FAILURES).map((item) => (item.error ? `${item.label}: ${item.error}` : item.label)),
  });
}

/**
 * The run's outcome as an assistant message of its own turn in the proposer's session, in the
 * language the conversation was last answered in. Its turn id is derived from the action and its
 * run, so a re-announced end writes nothing twice, while a resumed run's end is a new message.
 */
async function recordOutcomeInConversation(
  deps: Pick<CommandDeps, "db">,
  finished: AdminActionRow,
  facts: { notRun: number; failures: string[] },
): Promise<void> {
  if (!finished.session_id) return;
  const stored = await latestAnswerLanguage(deps.db, finished.org_id, finished.session_id);
  const language = catalogLanguage(isLanguageCode(stored) ? stored : "en");
  const status = finished.status as EndStatus;
  const content = ACTION_OUTCOME_LINES[language]({
    preview: finished.preview,
    status,
    done: finished.done,
    failed: finished.failed,
    total: finished.total,
    ...facts,
  });
  await insertAssistantMessageOnce(deps.db, {
    orgId: finished.org_id,
    sessionId: finished.session_id,
    turnId: outcomeTurnId(finished),
    content,
    metadata: { agent: "admin", language, action_outcome: { action_id: finished.id, status } },
  });
}

/** A UUID naming the end of one run of the action. */
function outcomeTurnId(action: AdminActionRow): string {
  const hex = createHash("sha256").update(`action-outcome:${action.id}:${action.runs}:${action.status}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
