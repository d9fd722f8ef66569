/**
 * `tutor-generate`: one tutor turn, one job (named `tutor-turn`). It classifies and retrieves
 * first (stages.ts), each stage reported on its own (stage-report.ts) and its result kept
 * (checkpoints.ts), so a redelivered attempt starts at the first stage not yet done. An answer
 * started while the model classified (speculation.ts) is used when the settled route is the one
 * it was started on, and discarded unseen otherwise. Generation
 * streams the answer into the session room, then post-processes it
 * (citations checked against the sources given, suggestions), stores the assistant message
 * exactly once and ends the turn with `done`. A retry after a crash announces `restart` so
 * the client drops the partial text; a turn already answered is re-announced, not re-run; an
 * answer the model finished but the database did not store is stored, not generated again.
 * A turn its owner cancels stops streaming and ends with its partial answer (cancelled-turn.ts).
 */
import type { Logger } from "pino";
import { insertAssistantMessageOnce, findTurnMessage } from "../../db/queries/chat-messages";
import type { StoredMetadata } from "../../db/queries/message-metadata";
import { touchSession } from "../../db/queries/chat-sessions";
import type { WorkerDeps } from "../deps";
import { defineHandler, type JobContext } from "../registry";
import { extractCitations } from "./citations";
import type { RetrievalOutcome } from "./retrieval/types";
import { keepAnswer, keptStages, type KeptAnswer } from "./checkpoints";
import { endCancelledTurn } from "../turns/cancelled-turn";
import { clearTurnState, isRedelivery, isTurnCancelled } from "../turns/turn-state";
import type { TutorTurnPayload } from "../../queues/payloads";
import { StreamCancelled } from "../llm/stream-watch";
import { announceFailure, failTurn } from "../turns/stage-failure";
import { failedStage, TurnStages } from "./stage-report";
import { classifyTurn, retrieveForTurn, type Routing } from "./stages";
import { CancelledAfterStepDown, generate } from "./generation";
import type { SpeculativeAnswer } from "./speculation";
import { scheduleSummaryIfDue } from "../turns/summary-schedule";
import { stepDownUpdate, steppedDown } from "./step-down";
import { suggestionsFor } from "./suggestions";
import { loadTurnContext, type TurnContext } from "./turn-context";
import { turnEmitter, type TurnEmitter } from "../turns/turn-emitter";

export const generateHandler = defineHandler({
  queue: "tutor-generate",
  async perform({ job, data, deps, log }) {
    const stages = new TurnStages({ job, redis: deps.redis, log });
    return stages.attempt(() => answerTurn({ job, data, deps, log }, stages));
  },
  // A failure once the answer may be streaming is announced at once, a retry included (the client
  // may have shown partial text); before that, retries are silent. The final failure ends the
  // turn, also for a job that stalled out (its worker died too often), where no attempt failed.
  async onFailed({ data, deps }, error, { final }) {
    const stage = failedStage(error) ?? "generate";
    if (stage === "generate") await announceFailure(deps, data, error, !final);
    else if (final) await failTurn(deps, data, error);
  },
});

async function answerTurn({ job, data, deps, log }: JobContext<"tutor-generate">, stages: TurnStages): Promise<unknown> {
  const events = turnEmitter(deps.events, data.sessionId, data.turnId);
  // Everything the turn reads before it works, at once: each was its own round trip on the path to the first token
  // (bench/breakdown.md), and each is used only if the one before it let the turn go on.
  const [answeredRead, cancelledRead, turnRead, keptRead] = await Promise.allSettled([
    findTurnMessage(deps.db, data.orgId, data.turnId, "assistant"),
    isTurnCancelled(deps.redis, data.turnId),
    loadTurnContext(deps, data),
    keptStages(deps.redis, data.turnId),
  ]);
  const answered = settled(answeredRead);
  if (answered) {
    // Stored but the job died before finishing: finish the announcement, don't answer twice.
    const meta = answered.metadata;
    await events.emit("done", {
      messageId: answered.id,
      tokensUsed: meta.tokens_used ?? 0,
      retrievalSource: meta.retrieval_source ?? "none",
      retrievalLatencyMs: meta.retrieval_latency_ms ?? 0,
      generationLatencyMs: meta.generation_latency_ms ?? 0,
      ...(answered.status === "cancelled" ? { cancelled: true } : {}),
    });
    await clearTurnState(deps.redis, data.turnId);
    return { messageId: answered.id, replayed: true };
  }
  // Cancelled while queued, classified or retrieved: no model call, the turn ends here. A cancel wins over a turn that is gone.
  if (settled(cancelledRead)) return endCancelled(deps, data, events, "");
  let turn = settled(turnRead);
  const kept = settled(keptRead);
  let retrieval: RetrievalOutcome;
  let speculation: SpeculativeAnswer | undefined;
  if (kept.retrieval) {
    // A redelivered turn whose sources are kept: classify and retrieve are not run (nor shown) again.
    retrieval = kept.retrieval;
  } else {
    const routing: Routing = kept.intent
      ? { classification: kept.intent }
      : await stages.stage("classify", () => classifyTurn(deps, turn, events, log, () => loadTurnContext(deps, data)));
    const intent = routing.classification.intent;
    try {
      // A cancel between the stages ends the turn before the sources are searched (it is read once more before the model is asked).
      // A course turn's access is checked again once classified: an employee unenrolled while the model classified loses the
      // course here, and an answer started on it (stages.ts) is discarded unseen.
      const [cancelled, current] = await Promise.all([
        isTurnCancelled(deps.redis, data.turnId),
        !kept.intent && (data.courseId || data.lessonId) ? loadTurnContext(deps, data) : turn,
      ]);
      if (cancelled) {
        routing.speculation?.discard();
        return endCancelled(deps, data, events, "");
      }
      turn = current;
      retrieval = await stages.stage("retrieve", () => retrieveForTurn(deps, turn, intent, events, log, routing));
    } catch (error) {
      routing.speculation?.discard();
      throw error;
    }
    speculation = settleSpeculation(routing.speculation, retrieval, turn, log);
  }
  return stages.stage("generate", () =>
    generateStage({ job, data, deps, log }, turn, retrieval, events, { kept: kept.answer, retrievedNow: !kept.retrieval, speculation }),
  );
}

/** The speculative answer when it is the one the settled route asks for; otherwise it is discarded (its tokens were never sent). */
function settleSpeculation(
  speculation: SpeculativeAnswer | undefined,
  retrieval: RetrievalOutcome,
  turn: TurnContext,
  log: Logger,
): SpeculativeAnswer | undefined {
  if (!speculation) return undefined;
  if (speculation.answers(retrieval, turn)) {
    log.info({ intent: retrieval.intent }, "speculative answer confirmed: the classification chose its route");
    return speculation;
  }
  const streamedPieces = speculation.discard();
  log.info(
    { speculatedOn: speculation.retrieval.intent, intent: retrieval.intent, streamedPieces },
    "speculative answer discarded: the classification chose another route",
  );
  return undefined;
}

/** The value of a settled read, or its error thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

/** The generate stage: streams the answer (or stores the one kept from an earlier attempt), post-processes it and ends the turn. */
async function generateStage(
  { job, data, deps, log }: JobContext<"tutor-generate">,
  turn: TurnContext,
  retrieval: RetrievalOutcome,
  events: TurnEmitter,
  { kept, retrievedNow, speculation }: { kept: KeptAnswer | undefined; retrievedNow: boolean; speculation?: SpeculativeAnswer },
): Promise<unknown> {
  // A redelivery's client may hold partial text to drop, unless this attempt had to retrieve
  // first (no earlier attempt got as far as generating).
  try {
    if (!retrievedNow && isRedelivery(job)) await events.emit("stage", { stage: "generate", status: "restart" });
    await events.emit("stage", { stage: "generate", status: "started" });
  } catch (error) {
    // The speculative stream would run on unseen (and paid for) beside the retry.
    speculation?.discard();
    throw error;
  }
  if (kept) {
    // The model finished on an earlier attempt and only the write failed: show the same text again, don't regenerate it.
    log.info({ chars: kept.text.length }, "storing the answer kept from an earlier attempt; the model is not asked again");
    if (kept.steppedDownFrom) await events.emit("grounding_update", stepDownUpdate(kept.steppedDownFrom));
    if (kept.text) await events.emit("token", { content: kept.text });
  }
  let generated: KeptAnswer;
  try {
    if (kept) generated = kept;
    else {
      generated = speculation ? await speculation.confirm() : await generate(deps, turn, retrieval, events, log);
      await keepAnswer(deps.redis, turn.turnId, generated);
    }
  } catch (error) {
    if (error instanceof StreamCancelled)
      return endCancelled(deps, data, events, error.partialContent, error instanceof CancelledAfterStepDown ? steppedDown(retrieval) : retrieval);
    throw error;
  }
  const answer = generated.text;
  const generationLatencyMs = generated.generationLatencyMs;
  // Events emitted in one tick go to the turn's log in one script call (queues/events/turn-stream.ts), in call order.
  await Promise.all([events.emit("stage", { stage: "generate", status: "completed" }), events.emit("stage", { stage: "postprocess", status: "started" })]);
  // The model said its sources do not answer: stored and shown as general knowledge, citing nothing.
  const grounded = generated.steppedDownFrom ? steppedDown(retrieval) : retrieval;

  const citations = extractCitations(answer, grounded.sources);
  const suggestions = suggestionsFor(retrieval.intent, turn.language, Boolean(turn.courseId));
  const tokensUsed = generated.promptTokens + generated.completionTokens;
  const { row, inserted } = await insertAssistantMessageOnce(deps.db, {
    orgId: data.orgId,
    sessionId: data.sessionId,
    turnId: data.turnId,
    content: answer,
    metadata: {
      ...groundingMetadata(grounded),
      ...(generated.steppedDownFrom
        ? { stepped_down: { from: generated.steppedDownFrom, reason: "sources_do_not_answer", retrieved: retrieval.sources.length } }
        : {}),
      truncated: retrieval.truncated,
      ...(generated.citeRetry ? { cite_retry: generated.citeRetry } : {}),
      citations,
      suggestions,
      model: generated.model,
      language: turn.language,
      tokens_used: tokensUsed,
      retrieval_latency_ms: retrieval.latencyMs,
      generation_latency_ms: generationLatencyMs,
    },
  });
  if (!inserted) log.warn({ messageId: row.id }, "assistant message already stored for this turn; kept the first");
  await touchSession(deps.db, data.orgId, data.sessionId);
  await clearTurnState(deps.redis, data.turnId);

  await Promise.all([
    events.emit("citations", { citations }),
    events.emit("suggestions", { suggestions }),
    events.emit("stage", { stage: "postprocess", status: "completed" }),
    events.emit("done", { messageId: row.id, tokensUsed, retrievalSource: grounded.source, retrievalLatencyMs: retrieval.latencyMs, generationLatencyMs }),
  ]);
  await scheduleSummaryIfDue(deps, data).catch((error) => log.warn({ err: error }, "could not schedule a summary refresh"));
  return { messageId: row.id };
}

/** Stores the partial answer as `cancelled` and ends the turn with `done {cancelled: true}`; nothing runs after it. */
async function endCancelled(deps: WorkerDeps, data: TutorTurnPayload, events: TurnEmitter, shown: string, retrieval?: RetrievalOutcome): Promise<unknown> {
  await clearTurnState(deps.redis, data.turnId);
  const metadata: StoredMetadata = retrieval ? { ...groundingMetadata(retrieval), cancelled_during: "generate" } : { cancelled_during: "before_generation" };
  return endCancelledTurn(deps, data, events, {
    content: shown,
    metadata,
    ...(retrieval ? { done: { retrievalSource: retrieval.source, retrievalLatencyMs: retrieval.latencyMs } } : {}),
  });
}

/** How an answer was grounded, as stored with it (the sources without their text). */
function groundingMetadata(grounded: RetrievalOutcome): StoredMetadata {
  return {
    intent: grounded.intent,
    rung: grounded.rung,
    retrieval_source: grounded.source,
    sources: grounded.sources.map(({ content: _content, ...source }) => source),
  };
}
