/**
 * The tutor's answer from the model: streamed to the turn's emitter, cleaned as it goes
 * (citations only of the given sources, no recited prompt, the model's step-down turned into a
 * `grounding_update`). The emitter may hold what it is given (speculation.ts): this module never
 * knows whether the client already sees the answer, so it neither keeps nor stores it. A grounded
 * answer that cites nothing is asked for once more (cite-retry.ts).
 */
import type { Logger } from "pino";
import type { WorkerDeps } from "../deps";
import { StreamCancelled } from "../llm/stream-watch";
import { unrecoverableIfConfig } from "../turns/stage-failure";
import { reasoningRelay } from "../turns/reasoning-relay";
import { watchCancel } from "../turns/turn-state";
import type { TurnEmitter } from "../turns/turn-emitter";
import { AnswerGuard } from "./answer-guard";
import { citedAnswer } from "./cite-retry";
import type { KeptAnswer } from "./checkpoints";
import { buildTutorMessages, tutorBudgets } from "./conversation";
import type { RetrievalOutcome } from "./retrieval/types";
import { canStepDown, stepDownUpdate } from "./step-down";
import type { TurnContext } from "./turn-context";

/** A stream its owner cancelled after the model had stepped down: the partial answer is general knowledge. */
export class CancelledAfterStepDown extends StreamCancelled {}

/**
 * Streams the model's answer for `retrieval` to `events` and returns the finished text. The
 * owner's cancel (or `abort`, a speculative answer given up) ends it with StreamCancelled.
 */
export async function generate(
  deps: WorkerDeps,
  turn: TurnContext,
  retrieval: RetrievalOutcome,
  events: TurnEmitter,
  log: Logger,
  abort?: AbortSignal,
): Promise<KeptAnswer> {
  const messages = await buildTutorMessages(deps, turn, retrieval);
  const maxTokens = tutorBudgets(deps).generationReserve;
  const started = performance.now();
  const systemPrompt = messages[0]?.role === "system" && typeof messages[0].content === "string" ? messages[0].content : "";
  const sourceIndices = new Set(retrieval.sources.map((source) => source.index));
  const guard = new AnswerGuard(sourceIndices, systemPrompt, { stepDown: canStepDown(retrieval) });
  // A reasoning model's thinking is shown apart, under the same guard, and kept nowhere (a step-down marker in it steps nothing down).
  const thinking = reasoningRelay(events, new AnswerGuard(sourceIndices, systemPrompt));
  let stepDownAnnounced = false;
  // Before the first token shown after the marker, so the client changes the badge before the text arrives.
  const announceStepDown = async () => {
    if (!guard.steppedDown || stepDownAnnounced) return;
    stepDownAnnounced = true;
    await events.emit("grounding_update", stepDownUpdate(retrieval.rung));
  };
  // The owner's cancel aborts the stream within CANCEL_POLL_MS, wherever it was requested.
  const cancel = watchCancel(deps.redis, turn.turnId);
  let result;
  try {
    await cancel.check();
    result = await deps.llm.stream(
      { useCase: "generation", orgId: turn.orgId, userId: turn.userId },
      messages,
      {
        temperature: 0.3,
        maxTokens,
        signal: abort ? AbortSignal.any([cancel.signal, abort]) : cancel.signal,
        onReasoning: thinking.onReasoning,
      },
      async (content) => {
        await thinking.flush();
        const shown = guard.push(content);
        await announceStepDown();
        if (shown) await events.emit("token", { content: shown });
      },
    );
  } catch (error) {
    // The partial answer is what the client was given, not what the guard still held back.
    if (error instanceof StreamCancelled) throw guard.steppedDown ? new CancelledAfterStepDown(guard.text) : new StreamCancelled(guard.text);
    throw unrecoverableIfConfig(error);
  } finally {
    cancel.stop();
  }
  await thinking.flush();
  const tail = guard.end();
  await announceStepDown();
  if (tail) await events.emit("token", { content: tail });
  if (guard.steppedDown) log.info({ from: retrieval.rung }, "the model stepped down: its sources do not answer, the turn is general knowledge");
  else if (guard.text !== result.content)
    log.warn({ removedChars: result.content.length - guard.text.length }, "answer cleaned: invalid citation markers or recited instructions removed");
  const first: KeptAnswer = {
    text: guard.text,
    model: result.model,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    generationLatencyMs: 0,
    ...(guard.steppedDown ? { steppedDownFrom: retrieval.rung } : {}),
  };
  // A grounded answer that cites nothing is asked for once more (cite-retry.ts).
  const answer = await citedAnswer({ deps, turn, retrieval, messages, first, events, log, maxTokens, abort });
  return { ...answer, generationLatencyMs: Math.round(performance.now() - started) };
}
