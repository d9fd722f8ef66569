/** `tutor-classify`: the intent of one turn; its return value feeds `tutor-retrieve`. */
import { defineHandler } from "../registry";
import { CANCELLED_STAGE, cancelledBeforeStage } from "./cancelled-turn";
import { classifyIntent } from "./intent";
import { announceFailure, unrecoverableIfConfig } from "./stage-failure";
import { loadTurnContext } from "./turn-context";
import { turnEmitter } from "./turn-emitter";

export const classifyHandler = defineHandler({
  queue: "tutor-classify",
  async perform({ job, data, deps, log }) {
    // A cancelled turn is passed on, not classified: generate ends it.
    if (await cancelledBeforeStage(deps, job, data.turnId)) return CANCELLED_STAGE;
    const turn = await loadTurnContext(deps, data);
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    await events.emit("stage", { stage: "classify", status: "started" });
    try {
      const { intent, decidedBy } = await classifyIntent(deps.llm, { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle }, data);
      log.info({ intent, decidedBy }, "turn classified");
      await events.emit("stage", { stage: "classify", status: "completed", detail: intent });
      return { intent, decidedBy };
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
  },
  async onFinalFailure({ data, deps }, error) {
    await announceFailure(deps, data, error, false);
  },
});
