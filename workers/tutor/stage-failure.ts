/**
 * How a failed tutor stage reaches the employee. Generation failures are announced on every
 * attempt (the client may have shown partial text and must know a restart is coming); the
 * earlier stages, invisible to the client, only when the turn has definitively failed.
 */
import { UnrecoverableError } from "bullmq";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { ErrorCode } from "../../queues/events/contract";
import type { WorkerDeps } from "../deps";
import { LlmError } from "../llm/errors";
import { turnEmitter } from "./turn-emitter";

export function describeFailure(error: unknown): { code: ErrorCode; message: string; retryAfter?: number; recoveryHint?: string } {
  // A configuration error arrives wrapped by unrecoverableIfConfig; the client must still see its code.
  if (error instanceof UnrecoverableError && error.cause instanceof LlmError) error = error.cause;
  if (error instanceof LlmError) {
    return { code: error.code, message: error.message, retryAfter: error.options.retryAfterSeconds, recoveryHint: error.options.recoveryHint };
  }
  return { code: "INTERNAL_ERROR", message: "The tutor could not finish this answer.", recoveryHint: "Send the message again." };
}

export async function announceFailure(deps: WorkerDeps, data: Pick<TutorTurnPayload, "sessionId" | "turnId">, error: unknown, willRetry: boolean): Promise<void> {
  const failure = describeFailure(error);
  const recoveryHint = willRetry ? "Retrying automatically; the answer will restart." : failure.recoveryHint;
  await turnEmitter(deps.events, data.sessionId, data.turnId).emit("error", { ...failure, recoveryHint, ...(willRetry ? { willRetry } : {}) });
}

/** Configuration errors will fail the same way on every retry: stop at once. */
export function unrecoverableIfConfig(error: unknown): unknown {
  if (error instanceof LlmError && error.code === "LLM_CONFIG_ERROR") {
    const stop = new UnrecoverableError(`${error.code}: ${error.message}`);
    stop.cause = error;
    return stop;
  }
  return error;
}
