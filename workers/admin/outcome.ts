/**
 * How an admin turn ends, told apart by `kind` (the handler switches on it exhaustively):
 * answered without the model (a reply to a pending action), planned by the model (tool rounds,
 * perhaps a proposal), or cancelled by its owner while it planned.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { ToolLoopResult } from "./tool-loop";

/** What a reply did to the action it answered (pending, or running for a stop); stored as `action_decision`. */
export type Decision = "confirmed" | "unchanged" | "rejected" | "still_pending" | "stopped";

/** Answered by code: the fixed sentence of replies.ts that says what happened to the action. */
export interface DecidedOutcome {
  kind: "decided";
  text: string;
  actionId: string;
  decision: Decision;
  /** A pending action this answer shows with "reply yes": once `done` is out, a reply may decide it. */
  shown?: AdminActionRow;
}

export interface PlannedOutcome {
  kind: "planned";
  text: string;
  loop: ToolLoopResult;
  /** This turn's proposal (new, or carried over from an earlier attempt), whatever its status now. */
  proposed?: AdminActionRow;
  shown?: AdminActionRow;
  /** The "nothing has changed yet" sentence appended to a proposal, stored so a client can drop it once the action is decided. */
  pendingFooter?: string;
}

/** The owner cancelled the turn while it planned; `text` is what had streamed. */
export interface CancelledOutcome {
  kind: "cancelled";
  text: string;
  loop: ToolLoopResult;
}

export type TurnOutcome = DecidedOutcome | PlannedOutcome | CancelledOutcome;

/** No reply decided the turn: the model plans it, after `prefix` (already streamed), with `stillPending` still waiting for a yes or no. */
export interface PlanNext {
  kind: "plan";
  prefix: string;
  stillPending?: AdminActionRow;
}
