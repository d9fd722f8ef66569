/**
 * One streaming turn as the socket delivers it. Events are applied once each, in `seq` order
 * (a replay after a reconnect may repeat what was already seen; those are skipped), and
 * `stage … restart` drops the partial text (and thinking) because the server is generating it again.
 */
import type { Citation, GivenSource, PendingAction, Rung, ToolCall, TurnError } from "./types";

export interface LiveTurn {
  turnId: string;
  sessionId: string;
  lastSeq: number;
  text: string;
  /** A reasoning model's thinking so far (`reasoning` events): shown apart, never part of `text`. */
  reasoning: string;
  rung?: Rung;
  /** What the answer was given (`grounding`): whose material it stands on before (or without) citing. */
  sources: GivenSource[];
  citations: Citation[];
  suggestions: string[];
  status: "streaming" | "done" | "failed" | "cancelled";
  error?: TurnError;
  tools: ToolCall[];
  action?: PendingAction;
  actionId?: string | null;
  /** The stored answer, once `done` names it (for feedback). */
  messageId?: string;
}

export interface TurnEventPayload {
  sessionId: string;
  turnId: string;
  seq: number;
  [key: string]: unknown;
}

export const TURN_EVENTS = [
  "stage",
  "grounding",
  "grounding_update",
  "token",
  "reasoning",
  "citations",
  "suggestions",
  "done",
  "error",
  "tool_call",
  "tool_result",
  "action_pending",
] as const;
export type TurnEventName = (typeof TURN_EVENTS)[number];

export function newTurn(sessionId: string, turnId: string): LiveTurn {
  return { turnId, sessionId, lastSeq: 0, text: "", reasoning: "", sources: [], citations: [], suggestions: [], status: "streaming", tools: [] };
}

/** The turn after one event; the same object when the event was already applied. */
export function applyEvent(turn: LiveTurn, name: TurnEventName, event: TurnEventPayload): LiveTurn {
  if (event.seq <= turn.lastSeq) return turn;
  const next: LiveTurn = { ...turn, lastSeq: event.seq };
  switch (name) {
    case "stage":
      if (event.status === "restart") {
        next.text = "";
        next.reasoning = "";
        next.error = undefined;
      }
      break;
    case "grounding":
      next.rung = event.rung as Rung;
      next.sources = (event.sources as GivenSource[] | undefined) ?? [];
      break;
    // The model found its sources do not answer: the badge says general knowledge from here on.
    case "grounding_update":
      next.rung = event.rung as Rung;
      next.sources = [];
      next.citations = [];
      break;
    case "token":
      next.text = turn.text + String(event.content ?? "");
      // Text flowing again means a retry announced by `error {willRetry}` is under way.
      if (turn.error?.willRetry) next.error = undefined;
      break;
    case "reasoning":
      next.reasoning = turn.reasoning + String(event.content ?? "");
      break;
    case "citations":
      next.citations = (event.citations as Citation[]) ?? [];
      break;
    case "suggestions":
      next.suggestions = (event.suggestions as string[]) ?? [];
      break;
    case "done":
      next.status = event.cancelled ? "cancelled" : "done";
      next.error = undefined;
      next.actionId = (event.actionId as string | null | undefined) ?? turn.actionId;
      if (typeof event.messageId === "string") next.messageId = event.messageId;
      break;
    case "error": {
      const error = {
        code: String(event.code),
        message: String(event.message ?? ""),
        retryAfter: event.retryAfter as number | undefined,
        recoveryHint: event.recoveryHint as string | undefined,
        willRetry: Boolean(event.willRetry),
      };
      next.error = error;
      if (!error.willRetry) next.status = "failed";
      break;
    }
    case "tool_call":
      next.tools = [...turn.tools, { callId: String(event.callId), tool: String(event.tool), arguments: event.arguments }];
      break;
    case "tool_result":
      next.tools = turn.tools.map((t) =>
        t.callId === event.callId
          ? {
              ...t,
              result: {
                ok: Boolean(event.ok),
                resultBytes: Number(event.resultBytes ?? 0),
                ms: Number(event.ms ?? 0),
                error: event.error as string | undefined,
              },
            }
          : t,
      );
      break;
    case "action_pending":
      next.action = event as unknown as PendingAction;
      next.actionId = String(event.actionId);
      break;
  }
  return next;
}
