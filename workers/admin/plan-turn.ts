/**
 * The model plans the turn: tool-calling rounds (reads run at once, a write becomes this turn's
 * proposal), stopped by a cancel. Whatever the model wrote, an answer that proposes ends with the
 * fixed line quoting exactly what "yes" runs, and one asked while an action waits ends with its
 * reminder. A cancelled turn withdraws what it proposed.
 */
import { withdrawProposals } from "../../commands/withdraw-proposals";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "../turns/turn-emitter";
import { watchCancel } from "../turns/turn-state";
import { adminConversation, todayOf } from "./conversation";
import type { CancelledOutcome, PlanNext, PlannedOutcome } from "./outcome";
import { TurnProposals } from "./proposals";
import { replies, say } from "./replies";
import { runToolLoop, type ToolLoopResult } from "./tool-loop";
import { ADMIN_TOOLS } from "./tools";
import { selectTools } from "./tools/selection";
import type { ToolContext } from "./tools/tool";
import type { AdminTurnContext } from "./turn-context";

/** How many item labels the "reply yes to run it" line quotes. */
const QUOTED_LABELS = 3;

export async function planTurn(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter, next: PlanNext): Promise<PlannedOutcome | CancelledOutcome> {
  const { stillPending } = next;
  const now = new Date();
  const proposals = await TurnProposals.load(deps, turn, events);
  const tools: ToolContext = {
    db: deps.db,
    orgId: turn.orgId,
    userId: turn.userId,
    language: turn.language,
    today: todayOf(now),
    propose: (action) => proposals.propose(action),
  };
  // The tools relevant to this message, the core ones, and the one of an action awaiting an answer.
  const offered = selectTools(ADMIN_TOOLS, {
    message: turn.message,
    previousMessage: turn.history.at(-1)?.user,
    inUse: stillPending ? [stillPending.tool] : [],
  });
  deps.log.debug({ turnId: turn.turnId, tools: offered.map((tool) => tool.name) }, "admin tools offered for the turn");
  const cancel = watchCancel(deps.redis, turn.turnId);
  let loop: ToolLoopResult;
  let cancelled: boolean;
  try {
    loop = await runToolLoop({
      deps,
      events,
      tools,
      messages: adminConversation(turn, now, stillPending),
      prefix: next.prefix,
      writeBlocked: () => (proposals.proposed || stillPending ? replies.writeBlocked(turn.language) : null),
      cancel,
      offered,
    });
    // One last look: a cancel that lands after the model finished still withdraws this turn's proposal.
    cancelled = loop.cancelled || (await cancel.check());
  } finally {
    cancel.stop();
  }
  if (cancelled) {
    if (proposals.proposed) await withdrawProposals(deps, turn, "the turn that proposed it was cancelled", turn.userId);
    return { kind: "cancelled", text: loop.text, loop };
  }
  await proposals.keepCarried();
  const { proposed, labels } = proposals;
  // Whatever the model wrote, the admin is told plainly that nothing ran yet and exactly what "yes" runs.
  const awaiting = proposed?.status === "pending" ? proposed : undefined;
  const footer = awaiting
    ? replies.pendingFooter(turn.language, awaiting, labels.slice(0, QUOTED_LABELS))
    : stillPending
      ? replies.stillPendingFooter(turn.language, stillPending)
      : "";
  if (footer) await say(events, footer);
  return {
    kind: "planned",
    text: loop.text + footer,
    loop,
    ...(proposed ? { proposed } : {}),
    ...(awaiting ? { shown: awaiting, pendingFooter: footer } : stillPending ? { shown: stillPending } : {}),
  };
}
