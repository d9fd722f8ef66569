/**
 * `tutor-classify`: the first job of a tutor flow queued by an earlier release, which ran a turn
 * as three jobs; kept so such flows drain after an upgrade. Turns queued now classify inside their
 * one `tutor-generate` job (generate.handler.ts). Its return value feeds `tutor-retrieve`.
 */
import { defineHandler } from "../registry";
import { CANCELLED_STAGE } from "../turns/cancelled-turn";
import { failTurn } from "../turns/stage-failure";
import { startStage } from "./stage-start";
import { classifyTurn } from "./stages";
import { turnEmitter } from "../turns/turn-emitter";

export const classifyHandler = defineHandler({
  queue: "tutor-classify",
  async perform({ job, data, deps, log }) {
    // A cancelled turn is passed on, not classified: generate ends it.
    const start = await startStage(deps, job, data);
    if (start.cancelled) return CANCELLED_STAGE;
    return classifyTurn(deps, start.turn, turnEmitter(deps.events, data.sessionId, data.turnId), log, false);
  },
  // Retries are silent (nothing has streamed yet); the final failure ends the turn.
  async onFailed({ data, deps }, error, { final }) {
    if (final) await failTurn(deps, data, error);
  },
});
