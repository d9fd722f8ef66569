/**
 * Storing an admin turn's answer, exactly once, with what it records of how it was made (model,
 * rounds, tool calls, the action it proposed, decided or showed), then `done`. A redelivered job
 * whose answer is stored replays `done` instead; a cancelled turn stores what had streamed.
 */
import { findTurnMessage, insertAssistantMessageOnce } from "../../db/queries/chat-messages";
import type { StoredMetadata } from "../../db/queries/message-metadata";
import { touchSession } from "../../db/queries/chat-sessions";
import { markActionAnnounced } from "../../db/queries/admin-actions";
import type { AdminTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { endCancelledTurn } from "../turns/cancelled-turn";
import type { TurnEmitter } from "../turns/turn-emitter";
import type { CancelledOutcome, DecidedOutcome, PlannedOutcome } from "./outcome";
import type { ToolLoopResult } from "./tool-loop";

/** The turn's stored answer, announced again (`done`); undefined when there is none yet. */
export async function replayStoredAnswer(
  deps: WorkerDeps,
  data: AdminTurnPayload,
  events: TurnEmitter,
): Promise<{ messageId: string; replayed: true } | undefined> {
  const answered = await findTurnMessage(deps.db, data.orgId, data.turnId, "assistant");
  if (!answered) return undefined;
  const meta = answered.metadata;
  await events.emit("done", {
    messageId: answered.id,
    tokensUsed: meta.tokens_used ?? 0,
    toolCalls: meta.tool_calls?.length ?? 0,
    actionId: meta.action_id ?? null,
    ...(answered.status === "cancelled" ? { cancelled: true } : {}),
  });
  // The attempt that stored the answer may have stopped before it recorded that `done` went out.
  if (meta.action_shown && answered.status === "complete") await markActionAnnounced(deps.db, data.orgId, meta.action_shown);
  return { messageId: answered.id, replayed: true };
}

/** Cancelled while it planned: what had streamed is stored as the cancelled answer, with the rounds it ran. */
export function storeCancelled(deps: WorkerDeps, data: AdminTurnPayload, events: TurnEmitter, language: string, outcome: CancelledOutcome) {
  const { loop } = outcome;
  return endCancelledTurn(deps, data, events, {
    content: outcome.text,
    metadata: { ...answerMetadata(language, loop), action_id: null, tokens_used: tokensOf(loop), cancelled_during: "plan" },
    done: { toolCalls: loop.runs.length, actionId: null },
  });
}

/** Cancelled while queued: nothing streamed, nothing decided or planned. */
export function storeCancelledBeforePlan(deps: WorkerDeps, data: AdminTurnPayload, events: TurnEmitter) {
  return endCancelledTurn(deps, data, events, {
    content: "",
    metadata: { agent: "admin", cancelled_during: "before_plan" },
    done: { toolCalls: 0, actionId: null },
  });
}

/** Stores the answer once, marks the action it showed as decidable by a reply, and sends `done`. */
export async function storeAnswer(
  deps: WorkerDeps,
  data: AdminTurnPayload,
  events: TurnEmitter,
  language: string,
  outcome: DecidedOutcome | PlannedOutcome,
  startedAt: number,
): Promise<{ messageId: string; actionId: string | null; toolCalls: number }> {
  const loop = outcome.kind === "planned" ? outcome.loop : undefined;
  const tokensUsed = tokensOf(loop);
  const actionId = outcome.kind === "planned" ? (outcome.proposed?.id ?? null) : outcome.actionId;
  const { row } = await insertAssistantMessageOnce(deps.db, {
    orgId: data.orgId,
    sessionId: data.sessionId,
    turnId: data.turnId,
    content: outcome.text,
    metadata: {
      ...answerMetadata(language, loop),
      action_id: actionId,
      ...(outcome.kind === "planned" && outcome.proposed ? { action_proposed: true, pending_footer: outcome.pendingFooter } : {}),
      ...(outcome.kind === "decided" ? { action_decision: outcome.decision } : {}),
      ...(outcome.shown ? { action_shown: outcome.shown.id } : {}),
      tokens_used: tokensUsed,
      latency_ms: Math.round(performance.now() - startedAt),
    },
  });
  await touchSession(deps.db, data.orgId, data.sessionId);
  const toolCalls = loop?.runs.length ?? 0;
  // From `done` on the admin has seen it: their next message may confirm or reject it. Marked just before `done` goes
  // out, so a reply sent the moment `done` arrives (a script, a fast hand) already finds it announced; the proposal
  // itself reached the page with `action_pending` while the answer streamed.
  if (outcome.shown) await markActionAnnounced(deps.db, data.orgId, outcome.shown.id);
  await events.emit("done", { messageId: row.id, tokensUsed, toolCalls, actionId });
  return { messageId: row.id, actionId, toolCalls };
}

const tokensOf = (loop: ToolLoopResult | undefined): number => (loop ? loop.promptTokens + loop.completionTokens : 0);

/** What every stored admin answer records of how it was made, cancelled or not. */
function answerMetadata(language: string, loop: ToolLoopResult | undefined): StoredMetadata {
  return { agent: "admin", language, model: loop?.model ?? null, rounds: loop?.rounds ?? 0, tool_calls: toolCallsMetadata(loop) };
}

function toolCallsMetadata(loop: ToolLoopResult | undefined): NonNullable<StoredMetadata["tool_calls"]> {
  return (loop?.runs ?? []).map((run) => ({
    name: run.tool,
    arguments: run.arguments,
    ok: run.ok,
    result_bytes: Buffer.byteLength(run.json),
    truncated: run.truncated,
    ms: run.ms,
    round: run.round,
    ...(run.error ? { error: run.error } : {}),
  }));
}
