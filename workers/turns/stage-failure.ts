/**
 * How a failed turn reaches the person waiting for it. A generation attempt that will be retried
 * is announced at once (the client may have shown partial text and must know a restart is
 * coming); a turn that has failed for good — any stage, tutor or admin, by error, by stalling out
 * or by the lost-turn sweep — gets its final word through `failTurn`: one `failed` assistant
 * message and one final `error`, however many paths report the same failure.
 */
import { UnrecoverableError } from "bullmq";
import { findTurnMessage, insertAssistantMessageOnce } from "../../db/queries/chat-messages";
import type { StoredMetadata } from "../../db/queries/message-metadata";
import { isStatementTimeout } from "../../db/unavailable";
import { DEFAULT_LANGUAGE, type Language } from "../../lib/language";
import { detectLanguage } from "../../lib/language-detection";
import { messagesFor } from "../../lib/messages";
import type { FailedAgent } from "../../lib/messages/turn-failure-lines";
import { Refusal } from "../../lib/refusal";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { ErrorCode } from "../../queues/events/contract";
import type { WorkerDeps } from "../deps";
import { jobFailureCode } from "../job-outcome";
import { CallerRevokedError } from "./caller-revoked";
import { LlmError } from "../llm/errors";
import { clearTurnState } from "./turn-state";
import { turnEmitter } from "./turn-emitter";
import { TurnGoneError } from "./turn-gone";

/** The turn's jobs are gone (lost with Redis, or failed without a final word): found by the sweep. */
export class TurnLostError extends Error {
  constructor(readonly ageMs: number) {
    super(`turn lost: no answer and no live job ${Math.round(ageMs / 1000)} s after it was accepted`);
    this.name = "TurnLostError";
  }
}

export interface TurnFailure {
  code: ErrorCode;
  message: string;
  retryAfter?: number;
  recoveryHint?: string;
}

/** Which agent's turn failed: the words name who could not finish (the tutor, or the admin's assistant). */
export type TurnAgent = FailedAgent;

/**
 * The failure as the person reads it, in their language (lib/messages.ts; English where the
 * catalog has none). A model or configuration error keeps its own words: they are for an operator.
 */
export function describeFailure(error: unknown, agent: TurnAgent = "tutor", language: Language = DEFAULT_LANGUAGE): TurnFailure {
  const words = messagesFor(language).turnFailure;
  // A configuration error arrives wrapped by unrecoverableIfConfig; the client must still see its code.
  if (error instanceof UnrecoverableError && (error.cause instanceof LlmError || error.cause instanceof Refusal)) error = error.cause;
  if (error instanceof LlmError) {
    return { code: error.code, message: error.message, retryAfter: error.options.retryAfterSeconds, recoveryHint: error.options.recoveryHint };
  }
  if (error instanceof CallerRevokedError) return { code: error.code, message: error.userMessage };
  // The allowance ran out mid-turn: the accept-time code and sentence, nothing to retry.
  if (error instanceof Refusal && error.kind === "allowance_exhausted") return { code: "AI_ALLOWANCE_EXHAUSTED", message: error.message };
  if (error instanceof TurnLostError) {
    return { code: "TURN_LOST", message: words.lost, recoveryHint: words.sendAgain };
  }
  if (isStatementTimeout(error)) {
    return {
      code: "DATABASE_TIMEOUT",
      message: words.databaseTimeout,
      recoveryHint: words.sendAgainSoon,
    };
  }
  return { code: "INTERNAL_ERROR", message: words.couldNotFinish(agent), recoveryHint: words.sendAgain };
}

type TurnRef = Pick<TutorTurnPayload, "orgId" | "sessionId" | "turnId">;

const agentOf = (metadata: Record<string, unknown>): TurnAgent => (metadata.agent === "admin" ? "admin" : "tutor");

/**
 * The language of the turn's question, read again on the failure path only (a failure can come
 * before the turn's own stages decided it); English when it cannot be read, e.g. with the
 * database down, or when the question is too short to tell.
 */
async function languageOfTurn(deps: WorkerDeps, data: TurnRef): Promise<Language> {
  try {
    const question = await findTurnMessage(deps.db, data.orgId, data.turnId, "user");
    return question ? detectLanguage(question.content) : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/**
 * A failed attempt. One that will be retried is announced with `willRetry`; one that will not
 * ends the turn (`failTurn`), so a stage's last attempt needs no separate final hook.
 */
export async function announceFailure(deps: WorkerDeps, data: TurnRef, error: unknown, willRetry: boolean, agent: TurnAgent = "tutor"): Promise<void> {
  if (!willRetry) {
    await failTurn(deps, data, error, agent === "admin" ? { agent } : {});
    return;
  }
  const language = await languageOfTurn(deps, data);
  const failure = describeFailure(error, agent, language);
  await turnEmitter(deps.events, data.sessionId, data.turnId).emit("error", {
    ...failure,
    recoveryHint: messagesFor(language).turnFailure.retrying,
    willRetry,
  });
}

/**
 * Ends a turn for good: stores an empty `failed` assistant message (the history shows the gap
 * rather than a question with no reply) and emits the final `error`. Only the call that stores
 * the message speaks, so a turn already answered, failed or cancelled is left as it is; if the
 * database is unreachable the error is still emitted and the sweep records the status later.
 * Returns whether this call ended the turn.
 */
export async function failTurn(deps: WorkerDeps, data: TurnRef, error: unknown, metadata: StoredMetadata = {}): Promise<boolean> {
  const failure = describeFailure(error, agentOf(metadata), error instanceof TurnGoneError ? DEFAULT_LANGUAGE : await languageOfTurn(deps, data));
  let endedHere = true;
  // A turn whose session or question was deleted has nobody to tell and nowhere to store.
  if (!(error instanceof TurnGoneError)) {
    try {
      const stored = await insertAssistantMessageOnce(deps.db, {
        orgId: data.orgId,
        sessionId: data.sessionId,
        turnId: data.turnId,
        content: "",
        status: "failed",
        // The code and the human message only: an internal error's own text (an SQL statement, a stack) stays in the log.
        metadata: { ...metadata, error: failure.message, error_code: failure.code, failure_kind: jobFailureCode(error) },
      });
      endedHere = stored.inserted;
    } catch (storeError) {
      deps.log.warn({ err: storeError, turnId: data.turnId }, "could not store the failed turn's status; announcing the failure anyway");
    }
  }
  await clearTurnState(deps.redis, data.turnId).catch(() => undefined);
  if (!endedHere) return false;
  await turnEmitter(deps.events, data.sessionId, data.turnId).emit("error", failure);
  return true;
}

/** Configuration errors, and an allowance spent, will fail the same way on every retry: stop at once. */
export function unrecoverableIfConfig(error: unknown): unknown {
  if ((error instanceof LlmError && error.code === "LLM_CONFIG_ERROR") || (error instanceof Refusal && error.kind === "allowance_exhausted")) {
    const stop = new UnrecoverableError(`${error.code}: ${error.message}`);
    stop.cause = error;
    return stop;
  }
  return error;
}
