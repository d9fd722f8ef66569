/**
 * `tutor-retrieve`: runs the retrieval ladder for the intent `tutor-classify` returned and
 * announces the rung in a `grounding` event, before any token is generated. The sources go
 * to generate through a short-lived Redis key; the job's return value is only a summary.
 */
import { UnrecoverableError } from "bullmq";
import { childResult, classifyResult } from "../../queues/payloads";
import { defineHandler } from "../registry";
import { CANCELLED_STAGE } from "../turns/cancelled-turn";
import { handOver } from "./retrieval/handoff";
import { runRetrievalLadder } from "./retrieval/ladder";
import { failTurn, unrecoverableIfConfig } from "../turns/stage-failure";
import { startStage } from "./stage-start";
import { turnEmitter } from "../turns/turn-emitter";

export const retrieveHandler = defineHandler({
  queue: "tutor-retrieve",
  async perform({ job, data, deps, log }) {
    // A cancelled turn is passed on, not retrieved for: generate ends it.
    const start = await startStage(deps, job, data);
    if (start.cancelled) return CANCELLED_STAGE;
    const intent = childResult(start.children, classifyResult)?.intent;
    if (!intent) throw new UnrecoverableError("tutor-retrieve ran without a classification result");
    const { turn } = start;
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    await events.emit("stage", { stage: "retrieve", status: "started" });
    try {
      const outcome = await runRetrievalLadder(deps, turn, intent);
      log.info({ intent, rung: outcome.rung, source: outcome.source, sources: outcome.sources.length, ms: outcome.latencyMs }, "retrieval done");
      await events.emit("grounding", {
        rung: outcome.rung,
        source: outcome.source,
        sources: outcome.sources.map(({ content: _content, ...source }) => source),
      });
      const summary = await handOver(deps.redis, data.turnId, outcome);
      await events.emit("stage", { stage: "retrieve", status: "completed", detail: outcome.rung });
      return summary;
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
  },
  // Retries are silent (nothing has streamed yet); the final failure ends the turn.
  async onFailed({ data, deps }, error, { final }) {
    if (final) await failTurn(deps, data, error);
  },
});
