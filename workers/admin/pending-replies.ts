/**
 * The admin's message read as a reply to a pending action, decided without the model. Only a
 * proposal the admin had seen when the message was stored may be decided (never this turn's
 * own): "yes" confirms and queues it, "no" rejects it, a new request rejects it and is planned,
 * anything else leaves it pending. A "yes" with nothing it may decide says what became of the
 * session's last proposal instead of guessing.
 */
import { confirmAction } from "../../commands/confirm-action";
import { rejectAction } from "../../commands/reject-action";
import { findDecidableAction, findLatestActionForSession, type AdminActionRow } from "../../db/queries/admin-actions";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "../turns/turn-emitter";
import { classifyReply } from "./confirmation";
import type { DecidedOutcome, PlanNext } from "./outcome";
import { replies, say } from "./replies";
import type { AdminTurnContext } from "./turn-context";

export async function replyToPending(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter): Promise<DecidedOutcome | PlanNext> {
  const pending = await findDecidableAction(deps.db, turn.orgId, { sessionId: turn.sessionId, turnId: turn.turnId, storedAt: turn.messageStoredAt });
  if (pending) return answerPending(deps, turn, events, pending);
  if (classifyReply(turn.message) === "confirm") {
    const latest = await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId);
    if (latest && latest.turn_id !== turn.turnId) return answerUnseen(events, turn, latest);
  }
  return { kind: "plan", prefix: "" };
}

async function decided(events: TurnEmitter, text: string, action: AdminActionRow, decision: DecidedOutcome["decision"], shown?: AdminActionRow) {
  await say(events, text);
  return { kind: "decided", text, actionId: action.id, decision, ...(shown ? { shown } : {}) } satisfies DecidedOutcome;
}

async function answerPending(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter, pending: AdminActionRow): Promise<DecidedOutcome | PlanNext> {
  const kind = classifyReply(turn.message);
  const language = turn.language;
  if (kind === "confirm") {
    const outcome = await confirmAction(deps, { orgId: pending.org_id, actionId: pending.id, confirmerId: turn.userId });
    if (outcome.kind === "confirmed") return decided(events, replies.confirmed(language, outcome.action), pending, "confirmed");
    const latest = (await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId)) ?? pending;
    return decided(events, replies.alreadyDecided(language, latest), pending, "unchanged");
  }
  if (kind === "reject" || kind === "new_request") {
    await rejectAction(deps, {
      orgId: turn.orgId,
      actionId: pending.id,
      rejectedBy: turn.userId,
      reason: kind === "reject" ? "rejected by the admin" : "superseded by a new request",
    });
    if (kind === "reject") return decided(events, replies.rejected(language, pending), pending, "rejected");
    const prefix = replies.supersededPrefix(language);
    await say(events, prefix);
    return { kind: "plan", prefix };
  }
  // Neither yes nor no. A short reply gets the reminder; a real question is answered, with the reminder after it.
  const isQuestion = turn.message.includes("?") || turn.message.trim().split(/\s+/).length > 3;
  if (!isQuestion) return decided(events, replies.stillPending(language, pending), pending, "still_pending", pending);
  return { kind: "plan", prefix: "", stillPending: pending };
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
