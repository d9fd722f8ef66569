/**
 * The two stages before generation, as the turn's one job runs them: each announces itself to
 * the client with `stage` events and keeps its result for a redelivered attempt (checkpoints.ts).
 */
import type { Logger } from "pino";
import { annotateSpan } from "../../lib/telemetry/spans";
import type { Intent } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { unrecoverableIfConfig } from "../turns/stage-failure";
import type { TurnEmitter } from "../turns/turn-emitter";
import { classifyIntent } from "./intent";
import { keepClassification, keepRetrieval, type Classification } from "./checkpoints";
import { runRetrievalLadder } from "./retrieval/ladder";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

/** Decides the turn's intent and keeps it. */
export async function classifyTurn(deps: WorkerDeps, turn: TurnContext, events: TurnEmitter, log: Logger): Promise<Classification> {
  await events.emit("stage", { stage: "classify", status: "started" });
  try {
    const { intent, decidedBy } = await classifyIntent(
      deps.llm,
      { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle },
      { orgId: turn.orgId, userId: turn.userId },
    );
    log.info({ intent, decidedBy }, "turn classified");
    annotateSpan({ "skillnet.intent": intent, "skillnet.intent.decided_by": decidedBy });
    const result = { intent, decidedBy } satisfies Classification;
    await keepClassification(deps.redis, turn.turnId, result);
    await events.emit("stage", { stage: "classify", status: "completed", detail: intent });
    return result;
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}

/** Runs the retrieval ladder for `intent`, announces the rung, and keeps the sources for generation. */
export async function retrieveForTurn(deps: WorkerDeps, turn: TurnContext, intent: Intent, events: TurnEmitter, log: Logger): Promise<RetrievalOutcome> {
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
    await keepRetrieval(deps.redis, turn.turnId, outcome);
    // Emitted in one tick, so they go to the turn's log in one script call (queues/events/turn-stream.ts), in this order.
    await Promise.all([
      events.emit("grounding", {
        rung: outcome.rung,
        source: outcome.source,
        sources: outcome.sources.map(({ content: _content, ...source }) => source),
      }),
      events.emit("stage", { stage: "retrieve", status: "completed", detail: outcome.rung }),
    ]);
    return outcome;
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}
