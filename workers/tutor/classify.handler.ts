/** `tutor-classify`: the intent of one turn; its return value feeds `tutor-retrieve`. */
import type { ClassifyResult } from "../../queues/payloads";
import { defineHandler } from "../registry";
import { CANCELLED_STAGE } from "../turns/cancelled-turn";
import { classifyIntent } from "./intent";
import { failTurn, unrecoverableIfConfig } from "../turns/stage-failure";
import { startStage } from "./stage-start";
import { turnEmitter } from "../turns/turn-emitter";

export const classifyHandler = defineHandler({
  queue: "tutor-classify",
  async perform({ job, data, deps, log }) {
    // A cancelled turn is passed on, not classified: generate ends it.
    const start = await startStage(deps, job, data);
    if (start.cancelled) return CANCELLED_STAGE;
    const { turn } = start;
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    await events.emit("stage", { stage: "classify", status: "started" });
    try {
      const { intent, decidedBy } = await classifyIntent(
        deps.llm,
        { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle },
        data,
      );
      log.info({ intent, decidedBy }, "turn classified");
      await events.emit("stage", { stage: "classify", status: "completed", detail: intent });
      return { intent, decidedBy } satisfies ClassifyResult;
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
  },
  // Retries are silent (nothing has streamed yet); the final failure ends the turn.
  async onFailed({ data, deps }, error, { final }) {
    if (final) await failTurn(deps, data, error);
  },
});
