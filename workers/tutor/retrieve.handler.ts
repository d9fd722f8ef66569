/**
 * `tutor-retrieve`: the middle job of a tutor flow queued by an earlier release (three jobs per
 * turn); kept so such flows drain after an upgrade. Turns queued now retrieve inside their one
 * `tutor-generate` job. It runs the retrieval ladder for the intent `tutor-classify` returned;
 * the sources go to generate through a short-lived Redis key, the return value is a summary.
 */
import { UnrecoverableError } from "bullmq";
import { childResult, classifyResult } from "../../queues/payloads";
import { defineHandler } from "../registry";
import { CANCELLED_STAGE } from "../turns/cancelled-turn";
import { failTurn } from "../turns/stage-failure";
import { startStage } from "./stage-start";
import { retrieveForTurn } from "./stages";
import { turnEmitter } from "../turns/turn-emitter";

export const retrieveHandler = defineHandler({
  queue: "tutor-retrieve",
  async perform({ job, data, deps, log }) {
    // A cancelled turn is passed on, not retrieved for: generate ends it.
    const start = await startStage(deps, job, data);
    if (start.cancelled) return CANCELLED_STAGE;
    const intent = childResult(start.children, classifyResult)?.intent;
    if (!intent) throw new UnrecoverableError("tutor-retrieve ran without a classification result");
    const { summary } = await retrieveForTurn(deps, start.turn, intent, turnEmitter(deps.events, data.sessionId, data.turnId), log);
    return summary;
  },
  // Retries are silent (nothing has streamed yet); the final failure ends the turn.
  async onFailed({ data, deps }, error, { final }) {
    if (final) await failTurn(deps, data, error);
  },
});
