/**
 * `admin-plan`: one admin assistant turn. If the session has a pending action the admin has seen
 * (proposed by an earlier turn whose `done` went out before this message was stored), the
 * message is first read as an answer to it (confirm → queued for execution, reject → cancelled,
 * neither → still pending); otherwise, or for a new request, the tool-calling rounds run. The
 * answer streams as `token` events and is stored once with its tool calls in the metadata.
 *
 * A turn never decides its own proposal: an attempt that is retried or handed back after
 * proposing leaves the proposal to the re-run, which gets it back unchanged instead of
 * proposing again; a turn that fails for good or is cancelled withdraws it.
 */
import { findTurnMessage, insertAssistantMessageOnce } from "../../db/queries/chat-messages";
import { touchSession } from "../../db/queries/chat-sessions";
import {
  confirmPendingAction,
  createPendingAction,
  findActionOfTurn,
  findDecidableAction,
  findLatestActionForSession,
  listActionItems,
  markActionAnnounced,
  rejectPendingAction,
  undoConfirmation,
  withdrawActionsOfTurn,
  type AdminActionRow,
} from "../../db/queries/admin-actions";

import type { WorkerDeps } from "../deps";
import type { ChatMessage } from "../llm/client";
import { defineHandler } from "../registry";
import { announceFailure, failTurn, unrecoverableIfConfig } from "../turns/stage-failure";
import { turnEmitter, type TurnEmitter } from "../turns/turn-emitter";
import { endCancelledTurn } from "../turns/cancelled-turn";
import { cancelWatcherFor, isTurnCancelled } from "../../queues/turn-cancel";
import { classifyReply } from "./confirmation";
import { adminSystemPrompt } from "./prompts";
import { pieces, replies } from "./replies";
import { runToolLoop, type ToolLoopResult } from "./tool-loop";
import { estimateWork, type ProposedAction } from "./tools/proposal";
import type { StoredProposal, ToolContext } from "./tools/tool";
import { loadAdminTurn, type AdminTurnContext } from "./turn-context";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const SHOWN_ITEMS = 20;
/** How many item labels the "reply yes to run it" line quotes. */
const QUOTED_LABELS = 3;

async function say(events: TurnEmitter, text: string): Promise<void> {
  for (const piece of pieces(text)) await events.emit("token", { content: piece });
}

/** Confirms and queues the action; a queue that refuses puts it back to pending and fails the attempt. */
async function confirmAndQueue(deps: WorkerDeps, action: AdminActionRow, confirmerId: string): Promise<AdminActionRow | null> {
  const confirmed = await confirmPendingAction(deps.db, action.org_id, action.id, confirmerId);
  if (!confirmed.ok) return null;
  // Announced before queueing, so "confirmed" always precedes the worker's "running".
  await deps.events.appendAction(action.id, action.user_id, "action_status", { status: "confirmed", by: confirmerId });
  try {
    await deps.producer.enqueueAdminAction({ orgId: action.org_id, actionId: action.id, userId: action.user_id, run: confirmed.action.runs });
  } catch (error) {
    await undoConfirmation(deps.db, action.org_id, action.id);
    await deps.events.appendAction(action.id, action.user_id, "action_status", { status: "pending" }).catch(() => undefined);
    throw error;
  }
  return confirmed.action;
}

interface Outcome {
  text: string;
  loop?: ToolLoopResult;
  decided?: { actionId: string; as: string };
  proposed?: AdminActionRow;
  /** A pending action this answer shows with "reply yes": once `done` is out, a reply may decide it. */
  shown?: AdminActionRow;
  /** The "nothing has changed yet" sentence appended to a proposal, stored so a client can drop it once the action is decided. */
  pendingFooter?: string;
  /** The owner cancelled the turn while it planned; `text` is what had streamed. */
  cancelled?: boolean;
}

/** The admin's reply to a pending action, decided without the model; null means "plan this turn". */
async function answerPending(
  deps: WorkerDeps,
  turn: AdminTurnContext,
  events: TurnEmitter,
  pending: AdminActionRow,
): Promise<Outcome | { plan: true; prefix: string; stillPending?: AdminActionRow }> {
  const kind = classifyReply(turn.message);
  const language = turn.language;
  if (kind === "confirm") {
    const confirmed = await confirmAndQueue(deps, pending, turn.userId);
    const text = confirmed
      ? replies.confirmed(language, confirmed)
      : replies.alreadyDecided(language, (await findLatestActionForSession(deps.db, turn.orgId, turn.sessionId)) ?? pending);
    await say(events, text);
    return { text, decided: { actionId: pending.id, as: confirmed ? "confirmed" : "unchanged" } };
  }
  if (kind === "reject" || kind === "new_request") {
    const rejected = await rejectPendingAction(deps.db, turn.orgId, pending.id, kind === "reject" ? "rejected by the admin" : "superseded by a new request");
    if (rejected.ok) await deps.events.appendAction(pending.id, pending.user_id, "action_status", { status: "rejected", by: turn.userId });
    if (kind === "reject") {
      const text = replies.rejected(language, pending);
      await say(events, text);
      return { text, decided: { actionId: pending.id, as: "rejected" } };
    }
    const prefix = replies.supersededPrefix(language);
    await say(events, prefix);
    return { plan: true, prefix };
  }
  // Neither yes nor no. A short reply gets the reminder; a real question is answered, with the reminder after it.
  const isQuestion = turn.message.includes("?") || turn.message.trim().split(/\s+/).length > 3;
  if (!isQuestion) {
    const text = replies.stillPending(language, pending);
    await say(events, text);
    return { text, decided: { actionId: pending.id, as: "still_pending" }, shown: pending };
  }
  return { plan: true, prefix: "", stillPending: pending };
}

/**
 * A "yes" that may decide nothing: the last proposal is decided already, expired, or was not yet
 * shown when the message was stored. A pending one is shown now (this answer quotes it and asks
 * again), so the admin's next reply can decide it.
 */
async function answerUnseen(events: TurnEmitter, turn: AdminTurnContext, latest: AdminActionRow): Promise<Outcome> {
  if (latest.status === "pending") {
    const text = replies.notYetShown(turn.language, latest);
    await say(events, text);
    return { text, decided: { actionId: latest.id, as: "still_pending" }, shown: latest };
  }
  const text = latest.status === "expired" ? replies.expired(turn.language, latest) : replies.alreadyDecided(turn.language, latest);
  await say(events, text);
  return { text, decided: { actionId: latest.id, as: "unchanged" } };
}

function conversation(turn: AdminTurnContext, system: string): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: system }];
  for (const past of turn.history) {
    messages.push({ role: "user", content: past.user });
    if (past.assistant) messages.push({ role: "assistant", content: past.assistant });
  }
  messages.push({ role: "user", content: turn.message });
  return messages;
}

/** The first frozen labels of an action, for the line that asks the admin to confirm it. */
async function labelsOf(deps: WorkerDeps, action: AdminActionRow, limit: number): Promise<string[]> {
  return (await listActionItems(deps.db, action.org_id, action.id)).slice(0, limit).map((item) => item.label);
}

async function plan(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter, prefix: string, stillPending?: AdminActionRow): Promise<Outcome> {
  const now = new Date();
  const today = now.toISOString().slice(0, 10);
  // What an earlier attempt of this turn proposed (handed back or failed after proposing): carried over, never re-proposed.
  const carried = await findActionOfTurn(deps.db, turn.orgId, turn.turnId);
  let proposed: AdminActionRow | undefined;
  let labels: string[] = [];
  const announcePending = async (row: AdminActionRow, shownLabels: string[], estimate: Record<string, unknown> | null): Promise<void> => {
    await events.emit("action_pending", {
      actionId: row.id,
      tool: row.tool,
      preview: row.preview,
      total: row.total,
      items: shownLabels.slice(0, SHOWN_ITEMS).map((label, position) => ({ position, label })),
      estimate: estimate as { items: number; writes: number; seconds: number },
      expiresAt: row.expires_at.toISOString(),
    });
  };
  const stored = (row: AdminActionRow, frozen: string[]): StoredProposal => ({
    actionId: row.id,
    status: row.status,
    preview: row.preview,
    total: row.total,
    labels: frozen,
    expiresAt: row.expires_at.toISOString(),
  });
  const tools: ToolContext = {
    db: deps.db,
    orgId: turn.orgId,
    userId: turn.userId,
    language: turn.language,
    today,
    propose: async (action: ProposedAction) => {
      if (carried) {
        proposed = carried;
        labels = await labelsOf(deps, carried, SHOWN_ITEMS);
        // Shown again: the client dropped what the earlier attempt streamed when it saw `restart`.
        if (carried.status === "pending") await announcePending(carried, labels, carried.estimate);
        return stored(carried, labels);
      }
      const estimate = estimateWork(action.items);
      const row = await createPendingAction(deps.db, {
        orgId: turn.orgId,
        userId: turn.userId,
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        tool: action.tool,
        args: action.args,
        preview: action.preview,
        estimate,
        expiresAt: new Date(Date.now() + deps.config.ADMIN_ACTION_TTL_SECONDS * 1000),
        items: action.items,
      });
      proposed = row;
      labels = action.items.slice(0, SHOWN_ITEMS).map((item) => item.label);
      await announcePending(row, labels, estimate);
      return stored(row, labels);
    },
  };
  const system = adminSystemPrompt({
    orgName: turn.orgName,
    adminName: turn.adminName,
    language: turn.language,
    today,
    weekday: WEEKDAYS[now.getUTCDay()]!,
    pendingPreview: stillPending?.preview,
  });
  const blocked =
    turn.language === "es"
      ? "Ya hay una acción esperando confirmación en esta conversación; pide al admin que la confirme o la cancele antes de proponer otra."
      : "An action is already waiting for confirmation in this conversation; ask the admin to confirm or cancel it before proposing another.";
  const cancel = cancelWatcherFor(deps.redis).watch(turn.turnId);
  let loop: ToolLoopResult;
  let cancelled: boolean;
  try {
    loop = await runToolLoop({
      deps,
      events,
      tools,
      messages: conversation(turn, system),
      prefix,
      writeBlocked: () => (proposed || stillPending ? blocked : null),
      cancel,
    });
    // One last look: a cancel that lands after the model finished still withdraws this turn's proposal.
    cancelled = loop.cancelled || (await cancel.check());
  } finally {
    cancel.stop();
  }
  if (cancelled) {
    if (proposed) await withdrawProposal(deps, turn, "the turn that proposed it was cancelled");
    return { text: loop.text, loop, cancelled: true };
  }
  // The earlier attempt's proposal stands even if the model did not ask for it again this time: shown, not dropped.
  if (!proposed && carried?.status === "pending") {
    proposed = carried;
    labels = await labelsOf(deps, carried, SHOWN_ITEMS);
    await announcePending(carried, labels, carried.estimate);
  }
  let text = loop.text;
  // Whatever the model wrote, the admin is told plainly that nothing ran yet and exactly what "yes" runs.
  const awaiting = proposed?.status === "pending" ? proposed : undefined;
  const footer = awaiting
    ? replies.pendingFooter(turn.language, awaiting, labels.slice(0, QUOTED_LABELS))
    : stillPending
      ? replies.stillPendingFooter(turn.language, stillPending)
      : "";
  if (footer) {
    await say(events, footer);
    text += footer;
  }
  return {
    text,
    loop,
    ...(proposed ? { proposed } : {}),
    ...(awaiting ? { shown: awaiting, pendingFooter: footer } : stillPending ? { shown: stillPending } : {}),
  };
}

/** A cancelled or failed turn leaves no pending action behind: what it proposed is rejected (and announced). */
async function withdrawProposal(deps: WorkerDeps, turn: { orgId: string; turnId: string; userId: string }, reason: string): Promise<void> {
  for (const withdrawn of await withdrawActionsOfTurn(deps.db, turn.orgId, turn.turnId, reason)) {
    await deps.events.appendAction(withdrawn.id, withdrawn.user_id, "action_status", { status: "rejected", by: turn.userId });
  }
}

/** What every stored admin answer records of how it was made, cancelled or not. */
function answerMetadata(language: string, loop: ToolLoopResult | undefined): Record<string, unknown> {
  return { agent: "admin", language, model: loop?.model ?? null, rounds: loop?.rounds ?? 0, tool_calls: toolCallsMetadata(loop) };
}

function toolCallsMetadata(loop: ToolLoopResult | undefined): Array<Record<string, unknown>> {
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

export const adminPlanHandler = defineHandler({
  queue: "admin-plan",
  async perform({ job, data, deps, log }) {
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    const answered = await findTurnMessage(deps.db, data.orgId, data.turnId, "assistant");
    if (answered) {
      const meta = answered.metadata as { tokens_used?: number; tool_calls?: unknown[]; action_id?: string | null; action_shown?: string };
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
    // Cancelled while queued: nothing is decided or planned.
    if (await isTurnCancelled(deps.redis, data.turnId)) {
      await withdrawProposal(deps, data, "the turn that proposed it was cancelled");
      return endCancelledTurn(deps, data, events, {
        content: "",
        metadata: { agent: "admin", cancelled_during: "before_plan" },
        done: { toolCalls: 0, actionId: null },
      });
    }
    const turn = await loadAdminTurn(deps, data);
    if (job.attemptsMade > 0 || job.attemptsStarted > 1) await events.emit("stage", { stage: "plan", status: "restart" });
    await events.emit("stage", { stage: "plan", status: "started" });
    const started = performance.now();

    let outcome: Outcome;
    try {
      // Only a proposal the admin had seen when this message was stored; never this turn's own.
      const pending = await findDecidableAction(deps.db, data.orgId, { sessionId: data.sessionId, turnId: data.turnId, storedAt: turn.messageStoredAt });
      const decided = pending ? await answerPending(deps, turn, events, pending) : undefined;
      // A "yes" with nothing it may decide: say what became of the last proposal instead of guessing.
      const latest = !decided && classifyReply(turn.message) === "confirm" ? await findLatestActionForSession(deps.db, data.orgId, data.sessionId) : undefined;
      if (decided && !("plan" in decided)) outcome = decided;
      else if (latest && latest.turn_id !== data.turnId) {
        outcome = await answerUnseen(events, turn, latest);
      } else {
        outcome = await plan(deps, turn, events, decided?.prefix ?? "", decided?.stillPending);
      }
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
    if (outcome.cancelled) {
      const loop = outcome.loop;
      return endCancelledTurn(deps, data, events, {
        content: outcome.text,
        metadata: {
          ...answerMetadata(turn.language, loop),
          action_id: null,
          tokens_used: loop ? loop.promptTokens + loop.completionTokens : 0,
          cancelled_during: "plan",
        },
        done: { toolCalls: loop?.runs.length ?? 0, actionId: null },
      });
    }
    await events.emit("stage", { stage: "plan", status: "completed" });

    const loop = outcome.loop;
    const tokensUsed = loop ? loop.promptTokens + loop.completionTokens : 0;
    const actionId = outcome.proposed?.id ?? outcome.decided?.actionId ?? null;
    const { row } = await insertAssistantMessageOnce(deps.db, {
      orgId: data.orgId,
      sessionId: data.sessionId,
      turnId: data.turnId,
      content: outcome.text,
      metadata: {
        ...answerMetadata(turn.language, loop),
        action_id: actionId,
        ...(outcome.proposed ? { action_proposed: true, pending_footer: outcome.pendingFooter } : {}),
        ...(outcome.decided ? { action_decision: outcome.decided.as } : {}),
        ...(outcome.shown ? { action_shown: outcome.shown.id } : {}),
        tokens_used: tokensUsed,
        latency_ms: Math.round(performance.now() - started),
      },
    });
    await touchSession(deps.db, data.orgId, data.sessionId);
    await events.emit("done", { messageId: row.id, tokensUsed, toolCalls: loop?.runs.length ?? 0, actionId });
    // From now on the admin has seen it: their next message may confirm or reject it.
    if (outcome.shown) await markActionAnnounced(deps.db, data.orgId, outcome.shown.id);
    log.info({ toolCalls: loop?.runs.length ?? 0, actionId, decision: outcome.decided?.as }, "admin turn answered");
    return { messageId: row.id };
  },
  // A retry is announced (the client may have shown partial text); the final failure ends the turn,
  // also for a job that stalled out (its worker died too often), where no attempt failed.
  // A retry keeps this attempt's proposal for the re-run; a turn that fails for good withdraws it.
  async onFailed({ data, deps }, error, { final }) {
    if (!final) return announceFailure(deps, data, error, true);
    await withdrawProposal(deps, data, "the turn that proposed it failed before the admin saw it");
    await failTurn(deps, data, error, { agent: "admin" });
  },
});
