/**
 * The admin's message read as a reply to a pending action, decided without the model. Only a
 * proposal the admin had seen when the message was stored may be decided (never this turn's
 * own): a plain "yes" confirms and queues it, a plain "no" rejects it, a new request rejects it
 * and is planned; a question, a condition or a hedge is answered by the model and leaves it
 * pending, as does anything else (confirmation.ts says which is which). A "yes" with nothing it may decide says what became of the
 * session's last proposal instead of guessing. A plain "stop" ("para", "detén") while an action
 * of the session is queued or running stops it, and says exactly what was done and what not.
 */
import { confirmAction } from "../../commands/confirm-action";
import { rejectAction } from "../../commands/reject-action";
import { stopAction } from "../../commands/stop-action";
import { actionSummary } from "../../db/queries/json-columns";
import { findAction, findDecidableAction, findLatestActionForSession, findStoppableAction, type AdminActionRow } from "../../db/queries/admin-actions";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "../turns/turn-emitter";
import { classifyReply, isStopRequest } from "./confirmation";
import type { DecidedOutcome, PlanNext } from "./outcome";
import { replies, say } from "./replies";
import type { AdminTurnContext } from "./turn-context";

export async function replyToPending(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter): Promise<DecidedOutcome | PlanNext> {
  const stop = isStopRequest(turn.message);
  if (stop) {
    const running = await findStoppableAction(deps.db, turn.orgId, { sessionId: turn.sessionId, storedAt: turn.messageStoredAt });
    if (running) return stopRunning(deps, turn, events, running);
  }
  const pending = await findDecidableAction(deps.db, turn.orgId, { sessionId: turn.sessionId, turnId: turn.turnId, storedAt: turn.messageStoredAt });
  if (pending) return answerPending(deps, turn, events, pending);
  if (classifyReply(turn.message) === "confirm") {
    const latest = await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId);
    if (latest && latest.turn_id !== turn.turnId) return answerUnseen(events, turn, latest);
  }
  if (stop) {
    // Nothing runs and nothing waits: say what became of the session's last action, not the model's guess.
    const latest = await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId);
    if (latest && latest.turn_id !== turn.turnId && latest.status !== "pending") return decided(events, notRunning(turn, latest), latest, "unchanged");
  }
  return { kind: "plan", prefix: "" };
}

async function decided(events: TurnEmitter, text: string, action: AdminActionRow, decision: DecidedOutcome["decision"], shown?: AdminActionRow) {
  await say(events, text);
  return { kind: "decided", text, actionId: action.id, decision, ...(shown ? { shown } : {}) } satisfies DecidedOutcome;
}

/** A stop of the session's queued or running action: the answer gives the final counts the stop recorded. */
async function stopRunning(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter, running: AdminActionRow): Promise<DecidedOutcome> {
  const outcome = await stopAction(deps, { orgId: turn.orgId, actionId: running.id, stoppedBy: turn.userId });
  if (outcome.kind === "stopped") {
    const notRun = actionSummary.parse(outcome.action.summary)?.stopped?.not_run ?? 0;
    return decided(events, replies.stopped(turn.language, outcome.action, notRun), outcome.action, "stopped");
  }
  // It finished (or was stopped from the card) before this message got to it.
  const latest = outcome.kind === "finished" ? outcome.action : ((await findAction(deps.db, turn.orgId, running.id)) ?? running);
  return decided(events, notRunning(turn, latest), latest, "unchanged");
}

const notRunning = (turn: AdminTurnContext, action: AdminActionRow): string =>
  replies.notRunning(turn.language, action, actionSummary.parse(action.summary)?.stopped?.not_run);

async function answerPending(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter, pending: AdminActionRow): Promise<DecidedOutcome | PlanNext> {
  const kind = classifyReply(turn.message);
  const language = turn.language;
  switch (kind) {
    case "confirm": {
      const outcome = await confirmAction(deps, { orgId: pending.org_id, actionId: pending.id, confirmerId: turn.userId });
      if (outcome.kind === "confirmed") return decided(events, replies.confirmed(language, outcome.action), pending, "confirmed");
      const latest = (await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId)) ?? pending;
      return decided(events, replies.alreadyDecided(language, latest), pending, "unchanged");
    }
    case "reject":
      await rejectAction(deps, { orgId: turn.orgId, actionId: pending.id, rejectedBy: turn.userId, reason: "rejected by the admin" });
      return decided(events, replies.rejected(language, pending), pending, "rejected");
    case "new_request": {
      await rejectAction(deps, { orgId: turn.orgId, actionId: pending.id, rejectedBy: turn.userId, reason: "superseded by a new request" });
      const prefix = replies.supersededPrefix(language);
      await say(events, prefix);
      return { kind: "plan", prefix };
    }
    // A short reply that is neither yes nor no gets the reminder alone.
    case "unclear":
      return decided(events, replies.stillPending(language, pending), pending, "still_pending", pending);
    // A question, a condition or a hedge is answered by the model; the proposal stays pending and the reminder follows.
    case "question":
      return { kind: "plan", prefix: "", stillPending: pending };
    default: {
      const unknown: never = kind;
      throw new Error(`unhandled reply kind ${String(unknown)}`);
    }
  }
}

/**
 * A "yes" that may decide nothing: the last proposal is decided already, expired, or was not yet
 * shown when the message was stored. A pending one is shown now (this answer quotes it and asks
 * again), so the admin's next reply can decide it.
 */
async function answerUnseen(events: TurnEmitter, turn: AdminTurnContext, latest: AdminActionRow): Promise<DecidedOutcome> {
  if (latest.status === "pending") return decided(events, replies.notYetShown(turn.language, latest), latest, "still_pending", latest);
  const text = latest.status === "expired" ? replies.expired(turn.language, latest) : replies.alreadyDecided(turn.language, latest);
  return decided(events, text, latest, "unchanged");
}
