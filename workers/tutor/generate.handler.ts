/**
 * `tutor-generate`: streams the answer into the session room, then post-processes it
 * (citations checked against the sources given, suggestions), stores the assistant message
 * exactly once and ends the turn with `done`. A retry after a crash announces `restart` so
 * the client drops the partial text; a turn already answered is re-announced, not re-run.
 */
import { UnrecoverableError } from "bullmq";
import type { Logger } from "pino";
import { insertAssistantMessageOnce, findTurnMessage } from "../../db/queries/chat-messages";
import type { WorkerDeps } from "../deps";
import { defineHandler } from "../registry";
import { AnswerGuard } from "./answer-guard";
import { extractCitations } from "./citations";
import { buildTutorMessages } from "./conversation";
import { release, takeOver, type RetrievalSummary } from "./retrieval/handoff";
import { runRetrievalLadder } from "./retrieval/ladder";
import type { RetrievalOutcome } from "./retrieval/types";
import { announceFailure, unrecoverableIfConfig } from "./stage-failure";
import { scheduleSummaryIfDue } from "./summary-schedule";
import { suggestionsFor } from "./suggestions";
import { loadTurnContext, type TurnContext } from "./turn-context";
import { turnEmitter } from "./turn-emitter";

export const generateHandler = defineHandler({
  queue: "tutor-generate",
  async perform({ job, data, deps, log }) {
    const events = turnEmitter(deps.events, data.sessionId, data.turnId);
    const answered = await findTurnMessage(deps.db, data.orgId, data.turnId, "assistant");
    if (answered) {
      // Stored but the job died before finishing: finish the announcement, don't answer twice.
      const meta = answered.metadata as Record<string, never>;
      await events.emit("done", { messageId: answered.id, tokensUsed: meta.tokens_used ?? 0, retrievalSource: meta.retrieval_source ?? "none", retrievalLatencyMs: meta.retrieval_latency_ms ?? 0, generationLatencyMs: meta.generation_latency_ms ?? 0 });
      await release(deps.redis, data.turnId);
      return { messageId: answered.id, replayed: true };
    }
    const summary = Object.values(await job.getChildrenValues()).find((value) => (value as RetrievalSummary)?.rung) as RetrievalSummary | undefined;
    if (!summary) throw new UnrecoverableError("tutor-generate ran without a retrieval result");
    const turn = await loadTurnContext(deps, data);
    const retrieval = await sourcesFor(deps, turn, summary, log);

    // attemptsStarted also counts runs cut short by a dead worker (stalled jobs), which
    // attemptsMade does not: either way the client may hold partial text to drop.
    if (job.attemptsMade > 0 || job.attemptsStarted > 1) await events.emit("stage", { stage: "generate", status: "restart" });
    await events.emit("stage", { stage: "generate", status: "started" });
    const model = deps.llm.modelChain("generation")[0] ?? "";
    const messages = await buildTutorMessages(deps, turn, retrieval, model);

    const started = performance.now();
    // What the model says is cleaned before anyone sees it: citations only of given sources, no recited prompt.
    const systemPrompt = messages[0]?.role === "system" && typeof messages[0].content === "string" ? messages[0].content : "";
    const guard = new AnswerGuard(new Set(retrieval.sources.map((source) => source.index)), systemPrompt);
    let result;
    try {
      result = await deps.llm.stream({ useCase: "generation", orgId: data.orgId, userId: data.userId }, messages, { temperature: 0.3, maxTokens: 2_000 }, async (content) => {
        const shown = guard.push(content);
        if (shown) await events.emit("token", { content: shown });
      });
    } catch (error) {
      throw unrecoverableIfConfig(error);
    }
    const tail = guard.end();
    if (tail) await events.emit("token", { content: tail });
    const answer = guard.text;
    if (answer !== result.content) log.warn({ removedChars: result.content.length - answer.length }, "answer cleaned: invalid citation markers or recited instructions removed");
    const generationLatencyMs = Math.round(performance.now() - started);
    await events.emit("stage", { stage: "generate", status: "completed" });

    await events.emit("stage", { stage: "postprocess", status: "started" });
    const citations = extractCitations(answer, retrieval.sources);
    const suggestions = suggestionsFor(retrieval.intent, turn.language, Boolean(turn.courseId));
    const tokensUsed = result.promptTokens + result.completionTokens;
    const { row, inserted } = await insertAssistantMessageOnce(deps.db, {
      orgId: data.orgId,
      sessionId: data.sessionId,
      turnId: data.turnId,
      content: answer,
      metadata: {
        intent: retrieval.intent,
        rung: retrieval.rung,
        retrieval_source: retrieval.source,
        sources: retrieval.sources.map(({ content: _content, ...source }) => source),
        truncated: retrieval.truncated,
        citations,
        suggestions,
        model: result.model,
        language: turn.language,
        tokens_used: tokensUsed,
        retrieval_latency_ms: retrieval.latencyMs,
        generation_latency_ms: generationLatencyMs,
      },
    });
    if (!inserted) log.warn({ messageId: row.id }, "assistant message already stored for this turn; kept the first");
    await deps.db("chat_sessions").where({ id: data.sessionId, org_id: data.orgId }).update({ updated_at: deps.db.fn.now() });
    await release(deps.redis, data.turnId);

    await events.emit("citations", { citations });
    await events.emit("suggestions", { suggestions });
    await events.emit("stage", { stage: "postprocess", status: "completed" });
    await events.emit("done", {
      messageId: row.id,
      tokensUsed,
      retrievalSource: retrieval.source,
      retrievalLatencyMs: retrieval.latencyMs,
      generationLatencyMs,
    });
    await scheduleSummaryIfDue(deps, data).catch((error) => log.warn({ err: error }, "could not schedule a summary refresh"));
    return { messageId: row.id };
  },
  async onAttemptFailed({ data, deps }, error, willRetry) {
    await announceFailure(deps, data, error, willRetry);
    if (!willRetry) await release(deps.redis, data.turnId).catch(() => undefined);
  },
});

/** The sources retrieve handed over; if they have expired or were lost, retrieved again for the same intent. */
async function sourcesFor(deps: WorkerDeps, turn: TurnContext, summary: RetrievalSummary, log: Logger): Promise<RetrievalOutcome> {
  const stored = await takeOver(deps.redis, turn.turnId);
  if (stored) return stored;
  log.warn({ intent: summary.intent, rung: summary.rung }, "retrieval hand-off missing; retrieving again");
  try {
    return await runRetrievalLadder(deps, turn, summary.intent);
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}
