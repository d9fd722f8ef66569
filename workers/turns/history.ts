/**
 * Conversation memory: the session's cached summary plus the turns it does not cover, the
 * last six at least, raw. The summary is refreshed off the critical path by `chat-summarise`
 * when six more turns have aged out of the raw window since the last refresh. Tutor and admin
 * sessions alike.
 */
import type { ChatMessageRow } from "../../db/queries/chat-messages";
import { LABELS } from "../../lib/prompt-markers";

export const RAW_TURNS = 6;
export const SUMMARY_EVERY = 6;
/**
 * The most turns a prompt's history is read from: the token budget trims further, and the
 * summary carries anything older. Read with a SQL LIMIT, so a long session costs no more.
 */
export const HISTORY_WINDOW_TURNS = 40;
/** The most turns one summary refresh folds in: a session that ran far ahead of its summary catches up from its recent past. */
export const SUMMARY_MAX_TURNS = 60;

export interface Turn {
  user: string;
  assistant: string | null;
}

/**
 * Groups complete messages into turns, oldest first. A message an admin action wrote when its run
 * ended (`action_outcome`, a turn with no question) joins the answer of the turn before it, so
 * the prompt and the summary read it where it happened, and turns still count questions.
 */
export function toTurns(messages: Array<Pick<ChatMessageRow, "role" | "content" | "turn_id"> & { metadata?: { action_outcome?: unknown } }>): Turn[] {
  const turns = new Map<string, Turn>();
  let latest: Turn | undefined;
  for (const message of messages) {
    if (message.role === "assistant" && message.metadata?.action_outcome && !turns.has(message.turn_id)) {
      if (latest) latest.assistant = latest.assistant ? `${latest.assistant}\n\n${message.content}` : message.content;
      continue;
    }
    const turn = turns.get(message.turn_id) ?? { user: "", assistant: null };
    if (turn.user || message.role === "user") latest = turn;
    if (message.role === "user") turn.user = message.content;
    // An outcome folded in before this turn's own answer was stored follows that answer.
    else turn.assistant = turn.assistant ? `${message.content}\n\n${turn.assistant}` : message.content;
    turns.set(message.turn_id, turn);
  }
  return [...turns.values()].filter((turn) => turn.user);
}

/**
 * The turns a prompt shows raw: everything the summary does not cover (at least the last
 * RAW_TURNS). `turns` may be only the latest of the session's `totalTurns`, oldest first.
 */
export function rawWindow(turns: Turn[], summaryTurnCount: number, totalTurns = turns.length): Turn[] {
  const from = Math.min(Math.max(0, summaryTurnCount), Math.max(0, totalTurns - RAW_TURNS));
  const loadedFrom = totalTurns - turns.length;
  return turns.slice(Math.max(0, from - loadedFrom));
}

/**
 * How many turns a fresh summary should cover after a session reaches `totalTurns`, or null
 * when the cached one is still good enough.
 */
export function summaryDue(totalTurns: number, summaryTurnCount: number, hasSummary: boolean): number | null {
  const agedOut = totalTurns - RAW_TURNS;
  if (agedOut <= 0) return null;
  if (!hasSummary || agedOut - summaryTurnCount >= SUMMARY_EVERY) return agedOut;
  return null;
}

/** Who speaks in a session's transcript: the employee and the tutor, or the admin and their assistant. */
export const SPEAKERS = {
  tutor: { user: LABELS.employeeTurn, assistant: LABELS.tutorTurn },
  admin: { user: LABELS.adminTurn, assistant: LABELS.assistantTurn },
} as const;

export function transcript(turns: Turn[], speakers: { user: string; assistant: string } = SPEAKERS.tutor): string {
  return turns.map((turn) => `${speakers.user}: ${turn.user}${turn.assistant ? `\n${speakers.assistant}: ${turn.assistant}` : ""}`).join("\n");
}

/** The summary request both agents send (`chat-summarise`): what to do, what to keep, the earlier summary, the turns. */
export function summaryRequest(task: string, keep: string, turnsText: string, previousSummary: string | null): string {
  return [task, keep, ...(previousSummary ? [`Earlier summary to fold in: ${previousSummary}`] : []), "", turnsText, "", "Summary:"].join("\n");
}
