/**
 * `tutor-generate`: streams the answer into the session room, then post-processes it
 * (citations checked against the sources given, suggestions), stores the assistant message
 * exactly once and ends the turn with `done`. A retry after a crash announces `restart` so
 * the client drops the partial text; a turn already answered is re-announced, not re-run; an
 * answer the model finished but the database did not store is stored, not generated again.
 * A turn its owner cancels stops streaming and ends with its partial answer (cancelled-turn.ts).
 */
import { UnrecoverableError } from "bullmq";
import type { Logger } from "pino";
import { insertAssistantMessageOnce, findTurnMessage } from "../../db/queries/chat-messages";
import { touchSession } from "../../db/queries/chat-sessions";
import type { WorkerDeps } from "../deps";
import { defineHandler } from "../registry";
import { AnswerGuard } from "./answer-guard";
import { extractCitations } from "./citations";
import { buildTutorMessages } from "./conversation";
import { release, takeOver } from "./retrieval/handoff";
import { runRetrievalLadder } from "./retrieval/ladder";
import type { RetrievalOutcome } from "./retrieval/types";
import { dropKeptAnswer, keepAnswer, keptAnswer, type KeptAnswer } from "./kept-answer";
import { endCancelledTurn } from "../turns/cancelled-turn";
import { cancelWatcherFor } from "../../queues/turn-cancel";
import { childResult, retrievalSummary, type RetrievalSummary, type TutorTurnPayload } from "../../queues/payloads";
import { StreamCancelled } from "../llm/stream-watch";
import { announceFailure, unrecoverableIfConfig } from "../turns/stage-failure";
import { scheduleSummaryIfDue } from "./summary-schedule";
import { canStepDown, stepDownUpdate, steppedDown } from "./step-down";
import { suggestionsFor } from "./suggestions";
import { settled, startStage } from "./stage-start";
import type { TurnContext } from "./turn-context";
import { turnEmitter, type TurnEmitter } from "../turns/turn-emitter";

export const generateHandler = defineHandler({
  queue: "tutor-generate",
  async perform({ job, data, deps, log }) {
    const events = turnEmitter(deps.events, data.sessionId, data.turnId, { ms: deps.config.STREAM_TOKEN_WINDOW_MS });
    // Everything the stage reads before the model is asked, at once; each is used only if the one before it let the turn go on.
    const [answeredRead, started, handedOver, keptRead] = await Promise.allSettled([
      findTurnMessage(deps.db, data.orgId, data.turnId, "assistant"),
      startStage(deps, job, data),
      takeOver(deps.redis, data.turnId),
      keptAnswer(deps.redis, data.turnId),
    ]);
    const answered = settled(answeredRead);
    if (answered) {
      // Stored but the job died before finishing: finish the announcement, don't answer twice.
      const meta = answered.metadata as Record<string, never>;
      await events.emit("done", {
        messageId: answered.id,
        tokensUsed: meta.tokens_used ?? 0,
        retrievalSource: meta.retrieval_source ?? "none",
        retrievalLatencyMs: meta.retrieval_latency_ms ?? 0,
        generationLatencyMs: meta.generation_latency_ms ?? 0,
        ...(answered.status === "cancelled" ? { cancelled: true } : {}),
      });
      await release(deps.redis, data.turnId);
      return { messageId: answered.id, replayed: true };
    }
    // Cancelled while queued, classified or retrieved: no model call, the turn ends here.
    const start = settled(started);
    if (start.cancelled) return endCancelled(deps, data, events, "");
    const summary = childResult(start.children, retrievalSummary);
    if (!summary) throw new UnrecoverableError("tutor-generate ran without a retrieval result");
    const { turn } = start;
    const retrieval = await sourcesFor(deps, turn, summary, settled(handedOver), log);

    // attemptsStarted also counts runs cut short by a dead worker (stalled jobs), which
    // attemptsMade does not: either way the client may hold partial text to drop.
    if (job.attemptsMade > 0 || job.attemptsStarted > 1) await events.emit("stage", { stage: "generate", status: "restart" });
    await events.emit("stage", { stage: "generate", status: "started" });
    const kept = settled(keptRead);
    if (kept) {
      // The model finished on an earlier attempt and only the write failed: show the same text again, don't regenerate it.
      log.info({ chars: kept.text.length }, "storing the answer kept from an earlier attempt; the model is not asked again");
      if (kept.steppedDownFrom) await events.emit("grounding_update", stepDownUpdate(kept.steppedDownFrom));
      if (kept.text) await events.emit("token", { content: kept.text });
    }
    let generated: KeptAnswer;
    try {
      generated = kept ?? (await generate(deps, turn, retrieval, events, log));
    } catch (error) {
      if (error instanceof StreamCancelled)
        return endCancelled(deps, data, events, error.partialContent, error instanceof CancelledAfterStepDown ? steppedDown(retrieval) : retrieval);
      throw error;
    }
    const answer = generated.text;
    const generationLatencyMs = generated.generationLatencyMs;
    await events.emit("stage", { stage: "generate", status: "completed" });
    // The model said its sources do not answer: stored and shown as general knowledge, citing nothing.
    const grounded = generated.steppedDownFrom ? steppedDown(retrieval) : retrieval;

    await events.emit("stage", { stage: "postprocess", status: "started" });
    const citations = extractCitations(answer, grounded.sources);
    const suggestions = suggestionsFor(retrieval.intent, turn.language, Boolean(turn.courseId));
    const tokensUsed = generated.promptTokens + generated.completionTokens;
    const { row, inserted } = await insertAssistantMessageOnce(deps.db, {
      orgId: data.orgId,
      sessionId: data.sessionId,
      turnId: data.turnId,
      content: answer,
      metadata: {
        intent: retrieval.intent,
        rung: grounded.rung,
        retrieval_source: grounded.source,
        sources: grounded.sources.map(({ content: _content, ...source }) => source),
        ...(generated.steppedDownFrom
          ? { stepped_down: { from: generated.steppedDownFrom, reason: "sources_do_not_answer", retrieved: retrieval.sources.length } }
          : {}),
        truncated: retrieval.truncated,
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
    await Promise.all([release(deps.redis, data.turnId), dropKeptAnswer(deps.redis, data.turnId)]);

    await events.emit("citations", { citations });
    await events.emit("suggestions", { suggestions });
    await events.emit("stage", { stage: "postprocess", status: "completed" });
    await events.emit("done", {
      messageId: row.id,
      tokensUsed,
      retrievalSource: grounded.source,
      retrievalLatencyMs: retrieval.latencyMs,
      generationLatencyMs,
    });
    await scheduleSummaryIfDue(deps, data).catch((error) => log.warn({ err: error }, "could not schedule a summary refresh"));
    return { messageId: row.id };
  },
  // A retry is announced (the client may have shown partial text); the final failure ends the turn,
  // also for a job that stalled out (its worker died too often), where no attempt failed.
  async onFailed({ data, deps }, error, { final }) {
    await announceFailure(deps, data, error, !final);
  },
});

/**
 * Streams the model's answer to the session, cleaned as it goes (citations only of the given
 * sources, no recited prompt), and keeps the finished text until it is stored.
 */
async function generate(deps: WorkerDeps, turn: TurnContext, retrieval: RetrievalOutcome, events: TurnEmitter, log: Logger): Promise<KeptAnswer> {
  const model = deps.llm.modelChain("generation")[0] ?? "";
  const messages = await buildTutorMessages(deps, turn, retrieval, model);
  const started = performance.now();
  const systemPrompt = messages[0]?.role === "system" && typeof messages[0].content === "string" ? messages[0].content : "";
  const guard = new AnswerGuard(new Set(retrieval.sources.map((source) => source.index)), systemPrompt, { stepDown: canStepDown(retrieval) });
  let stepDownAnnounced = false;
  // Before the first token shown after the marker, so the client changes the badge before the text arrives.
  const announceStepDown = async () => {
    if (!guard.steppedDown || stepDownAnnounced) return;
    stepDownAnnounced = true;
    await events.emit("grounding_update", stepDownUpdate(retrieval.rung));
  };
  // The owner's cancel aborts the stream within CANCEL_POLL_MS, wherever it was requested.
  const cancel = cancelWatcherFor(deps.redis).watch(turn.turnId);
  let result;
  try {
    await cancel.check();
    result = await deps.llm.stream(
      { useCase: "generation", orgId: turn.orgId, userId: turn.userId },
      messages,
      { temperature: 0.3, maxTokens: 2_000, signal: cancel.signal },
      async (content) => {
        const shown = guard.push(content);
        await announceStepDown();
        if (shown) await events.emit("token", { content: shown });
      },
    );
  } catch (error) {
    // The partial answer is what the client was shown, not what the guard still held back.
    if (error instanceof StreamCancelled) throw guard.steppedDown ? new CancelledAfterStepDown(guard.text) : new StreamCancelled(guard.text);
    throw unrecoverableIfConfig(error);
  } finally {
    cancel.stop();
  }
  const tail = guard.end();
  await announceStepDown();
  if (tail) await events.emit("token", { content: tail });
  if (guard.steppedDown) log.info({ from: retrieval.rung }, "the model stepped down: its sources do not answer, the turn is general knowledge");
  else if (guard.text !== result.content)
    log.warn({ removedChars: result.content.length - guard.text.length }, "answer cleaned: invalid citation markers or recited instructions removed");
  const answer: KeptAnswer = {
    text: guard.text,
    model: result.model,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    generationLatencyMs: Math.round(performance.now() - started),
    ...(guard.steppedDown ? { steppedDownFrom: retrieval.rung } : {}),
  };
  await keepAnswer(deps.redis, turn.turnId, answer);
  return answer;
}

/** A stream its owner cancelled after the model had stepped down: the partial answer is general knowledge. */
class CancelledAfterStepDown extends StreamCancelled {}

/** Stores the partial answer as `cancelled` and ends the turn with `done {cancelled: true}`; nothing runs after it. */
async function endCancelled(deps: WorkerDeps, data: TutorTurnPayload, events: TurnEmitter, shown: string, retrieval?: RetrievalOutcome): Promise<unknown> {
  await Promise.all([release(deps.redis, data.turnId), dropKeptAnswer(deps.redis, data.turnId)]);
  const metadata = retrieval
    ? {
        intent: retrieval.intent,
        rung: retrieval.rung,
        retrieval_source: retrieval.source,
        sources: retrieval.sources.map(({ content: _content, ...source }) => source),
        cancelled_during: "generate",
      }
    : { cancelled_during: "before_generation" };
  return endCancelledTurn(deps, data, events, {
    content: shown,
    metadata,
    ...(retrieval ? { done: { retrievalSource: retrieval.source, retrievalLatencyMs: retrieval.latencyMs } } : {}),
  });
}

/** The sources retrieve handed over; if they have expired or were lost, retrieved again for the same intent. */
async function sourcesFor(
  deps: WorkerDeps,
  turn: TurnContext,
  summary: RetrievalSummary,
  stored: RetrievalOutcome | undefined,
  log: Logger,
): Promise<RetrievalOutcome> {
  if (stored) return stored;
  log.warn({ intent: summary.intent, rung: summary.rung }, "retrieval hand-off missing; retrieving again");
  try {
    return await runRetrievalLadder(deps, turn, summary.intent);
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}
