/**
 * `admin-plan`: one admin assistant turn. If the session has a pending action the admin has seen
 * (proposed by an earlier turn whose `done` went out before this message was stored), the
 * message is first read as an answer to it (confirm → queued for execution, reject → cancelled,
 * neither → still pending: pending-replies.ts); otherwise, or for a new request, the
 * tool-calling rounds run (plan-turn.ts). The answer streams as `token` events and is stored
 * once with its tool calls in the metadata (stored-answer.ts).
 *
 * A turn never decides its own proposal: an attempt that is retried or handed back after
 * proposing leaves the proposal to the re-run, which gets it back unchanged instead of
 * proposing again (proposals.ts); a turn that fails for good or is cancelled withdraws it.
 */
import { withdrawProposals } from "../../commands/withdraw-proposals";
import { defineHandler } from "../registry";
import { announceFailure, failTurn, unrecoverableIfConfig } from "../turns/stage-failure";
import { turnEmitter } from "../turns/turn-emitter";
import { scheduleSummaryIfDue } from "../turns/summary-schedule";
import { isRedelivery, isTurnCancelled } from "../turns/turn-state";
import type { TurnOutcome } from "./outcome";
import { replyToPending } from "./pending-replies";
import { planTurn } from "./plan-turn";
import { replayStoredAnswer, storeAnswer, storeCancelled, storeCancelledBeforePlan } from "./stored-answer";
import { loadAdminTurn } from "./turn-context";

export const adminPlanHandler = defineHandler({
  queue: "admin-plan",
  async perform({ job, data, deps, log }) {
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    // The reads before the plan call, at once (each was its own round trip before the model is asked);
    // each is used only if the one before it let the turn go on, so a replay or a cancel wins over a turn that is gone.
    const [replayRead, cancelledRead, turnRead] = await Promise.allSettled([
      replayStoredAnswer(deps, data, events),
      isTurnCancelled(deps.redis, data.turnId),
      loadAdminTurn(deps, data),
    ]);
    const replayed = settled(replayRead);
    if (replayed) return replayed;
    // Cancelled while queued: nothing is decided or planned.
    if (settled(cancelledRead)) {
      await withdrawProposals(deps, data, "the turn that proposed it was cancelled", data.userId);
      return storeCancelledBeforePlan(deps, data, events);
    }
    const turn = settled(turnRead);
    if (isRedelivery(job)) await events.emit("stage", { stage: "plan", status: "restart" });
    await events.emit("stage", { stage: "plan", status: "started" });
    const started = performance.now();

    let outcome: TurnOutcome;
    try {
      const reply = await replyToPending(deps, turn, events);
      outcome = reply.kind === "plan" ? await planTurn(deps, turn, events, reply) : reply;
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
    switch (outcome.kind) {
      case "cancelled":
        return storeCancelled(deps, data, events, turn.language, outcome);
      case "decided":
      case "planned": {
        await events.emit("stage", { stage: "plan", status: "completed" });
        const stored = await storeAnswer(deps, data, events, turn.language, outcome, started);
        const decision = outcome.kind === "decided" ? outcome.decision : undefined;
        log.info({ toolCalls: stored.toolCalls, actionId: stored.actionId, decision }, "admin turn answered");
        // The session's summary of older turns, refreshed off the critical path (a failure here never touches the turn).
        await scheduleSummaryIfDue(deps, data).catch((error) => log.warn({ err: error }, "could not schedule a summary refresh"));
        return { messageId: stored.messageId };
      }
      default: {
        const unknown: never = outcome;
        throw new Error(`unhandled admin turn outcome ${JSON.stringify(unknown)}`);
      }
    }
  },
  // A retry is announced (the client may have shown partial text); the final failure ends the turn,
  // also for a job that stalled out (its worker died too often), where no attempt failed.
  // A retry keeps this attempt's proposal for the re-run; a turn that fails for good withdraws it.
  async onFailed({ data, deps }, error, { final }) {
    if (!final) return announceFailure(deps, data, error, true, "admin");
    await withdrawProposals(deps, data, "the turn that proposed it failed before the admin saw it", data.userId);
    await failTurn(deps, data, error, { agent: "admin" });
  },
});

/** The value of a settled read, or its error thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
