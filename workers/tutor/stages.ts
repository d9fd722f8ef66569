/**
 * The two stages before generation, as the turn's one job runs them in process (and as the
 * `tutor-classify` / `tutor-retrieve` jobs of flows queued by an earlier release still do): each
 * announces itself to the client with the same `stage` events as ever and keeps its result for a
 * redelivered attempt (retrieval/handoff.ts).
 */
import type { Logger } from "pino";
import { annotateSpan } from "../../lib/telemetry/spans";
import type { ClassifyResult, Intent, RetrievalSummary } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { unrecoverableIfConfig } from "../turns/stage-failure";
import type { TurnEmitter } from "../turns/turn-emitter";
import { classifyIntent } from "./intent";
import { handOver, keepClassification } from "./retrieval/handoff";
import { runRetrievalLadder } from "./retrieval/ladder";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

/** Decides the turn's intent and keeps it (`keep`: the one-job turn; a flow's classify job returns it instead). */
export async function classifyTurn(deps: WorkerDeps, turn: TurnContext, events: TurnEmitter, log: Logger, keep: boolean): Promise<ClassifyResult> {
  await events.emit("stage", { stage: "classify", status: "started" });
  try {
    const { intent, decidedBy } = await classifyIntent(
      deps.llm,
      { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle },
      { orgId: turn.orgId, userId: turn.userId },
    );
    log.info({ intent, decidedBy }, "turn classified");
    annotateSpan({ "skillnet.intent": intent, "skillnet.intent.decided_by": decidedBy });
    const result = { intent, decidedBy } satisfies ClassifyResult;
    if (keep) await keepClassification(deps.redis, turn.turnId, result);
    await events.emit("stage", { stage: "classify", status: "completed", detail: intent });
    return result;
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}

/** Runs the retrieval ladder for `intent`, announces the rung, and keeps the sources for generation. */
export async function retrieveForTurn(
  deps: WorkerDeps,
  turn: TurnContext,
  intent: Intent,
  events: TurnEmitter,
  log: Logger,
): Promise<{ outcome: RetrievalOutcome; summary: RetrievalSummary }> {
  await events.emit("stage", { stage: "retrieve", status: "started" });
  try {
    const outcome = await runRetrievalLadder(deps, turn, intent);
    log.info({ intent, rung: outcome.rung, source: outcome.source, sources: outcome.sources.length, ms: outcome.latencyMs }, "retrieval done");
    annotateSpan({
      "skillnet.retrieval.rung": outcome.rung,
      "skillnet.retrieval.source": outcome.source,
      "skillnet.retrieval.sources": outcome.sources.length,
      "skillnet.retrieval.documents": new Set(outcome.sources.map((source) => source.document)).size,
    });
    const summary = await handOver(deps.redis, turn.turnId, outcome);
    // Emitted in one tick, so they go to the turn's log in one script call (queues/events/turn-stream.ts), in this order.
    await Promise.all([
      events.emit("grounding", {
        rung: outcome.rung,
        source: outcome.source,
        sources: outcome.sources.map(({ content: _content, ...source }) => source),
      }),
      events.emit("stage", { stage: "retrieve", status: "completed", detail: outcome.rung }),
    ]);
    return { outcome, summary };
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}
