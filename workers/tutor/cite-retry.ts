/**
 * The one retry of a grounded answer that cited nothing (after the torchdocs design: an answer
 * from the material that names no source is not shipped unsourced without a second try). The
 * model is shown what it wrote and asked to write it again, citing the numbered sources after
 * each claim.
 *
 * Streaming: the first answer streams as always (every grounded answer would otherwise wait for
 * its first citation before the employee saw a word), and whether it cited is known only once it
 * ends. The retry is one answered call; when it cites, the turn sends `restart` and its text as
 * one `token`, so the client drops the first answer and shows the second (the protocol's way of
 * replacing streamed text: no token is shown twice). When it cites nothing either — or fails, or
 * the turn is cancelled meanwhile — the first answer stands as it was streamed, flagged
 * (`cite_retry: "uncited"` in its metadata) and logged.
 */
import type { Logger } from "pino";
import type { WorkerDeps } from "../deps";
import type { ChatMessage } from "../llm/client";
import type { TurnEmitter } from "../turns/turn-emitter";
import { watchCancel } from "../turns/turn-state";
import { AnswerGuard } from "./answer-guard";
import type { KeptAnswer } from "./checkpoints";
import { citedIndices } from "./citations";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

/** The instruction the retry adds after the uncited answer. */
export const CITE_INSTRUCTION =
  "Your answer above cites none of the numbered sources it was given. Write the answer again for the employee, from the beginning, " +
  "citing the source of each claim as [1], [2], … after it. Use only the given source numbers, and do not mention this request.";

/**
 * Whether an answer on this retrieval must cite: the company material rungs. The learner's own
 * progress facts (`db`) are theirs, not material to cite; the general rung has nothing to cite.
 */
export function mustCite(retrieval: Pick<RetrievalOutcome, "rung" | "source" | "sources">): boolean {
  return (retrieval.rung === "chunks" || retrieval.rung === "document") && retrieval.source !== "db" && retrieval.sources.length > 0;
}

export function retryWithCitations(messages: ChatMessage[], uncitedAnswer: string): ChatMessage[] {
  return [...messages, { role: "assistant", content: uncitedAnswer }, { role: "user", content: CITE_INSTRUCTION }];
}

export interface CiteRetryInput {
  deps: WorkerDeps;
  turn: TurnContext;
  retrieval: RetrievalOutcome;
  /** What the first answer was generated from. */
  messages: ChatMessage[];
  first: KeptAnswer;
  events: TurnEmitter;
  log: Logger;
  maxTokens: number;
  abort?: AbortSignal | undefined;
}

/** The first answer when it cites (or needs not), else the retry's when it cites, else the first one flagged. */
export async function citedAnswer({ deps, turn, retrieval, messages, first, events, log, maxTokens, abort }: CiteRetryInput): Promise<KeptAnswer> {
  if (!mustCite(retrieval) || first.steppedDownFrom || citedIndices(first.text).length > 0) return first;
  const facts = { rung: retrieval.rung, sources: retrieval.sources.length };
  log.info(facts, "grounded answer cited nothing: asking once more, with the instruction to cite");
  const uncited = (reply?: { promptTokens: number; completionTokens: number }): KeptAnswer => {
    log.warn(facts, "grounded answer cited nothing after the retry: delivered as it is");
    return { ...first, ...(reply ? tokensOf(first, reply) : {}), citeRetry: "uncited" };
  };
  const cancel = watchCancel(deps.redis, turn.turnId);
  let reply;
  try {
    if (await cancel.check()) return first;
    reply = await deps.llm.chat({ useCase: "generation", orgId: turn.orgId, userId: turn.userId }, retryWithCitations(messages, first.text), {
      temperature: 0.3,
      maxTokens,
      signal: abort ? AbortSignal.any([cancel.signal, abort]) : cancel.signal,
    });
  } catch (error) {
    // The employee already has an answer: a retry that fails or is cancelled leaves it as it is.
    if (cancel.cancelled || abort?.aborted) return first;
    log.warn({ ...facts, err: error }, "the retry asking for citations failed");
    return uncited();
  } finally {
    cancel.stop();
  }
  const systemPrompt = messages[0]?.role === "system" && typeof messages[0].content === "string" ? messages[0].content : "";
  const guard = new AnswerGuard(new Set(retrieval.sources.map((source) => source.index)), systemPrompt);
  guard.push(reply.content);
  guard.end();
  if (citedIndices(guard.text).length === 0) return uncited(reply);
  await events.emit("stage", { stage: "generate", status: "restart" });
  await events.emit("token", { content: guard.text });
  return { ...first, text: guard.text, model: reply.model, ...tokensOf(first, reply), citeRetry: "cited" };
}

const tokensOf = (first: KeptAnswer, reply: { promptTokens: number; completionTokens: number }) => ({
  promptTokens: first.promptTokens + reply.promptTokens,
  completionTokens: first.completionTokens + reply.completionTokens,
});
