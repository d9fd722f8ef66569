/**
 * Ending a chat turn its owner cancelled (tutor and admin assistant alike): the partial answer,
 * exactly what the client was shown (possibly nothing), is stored once with status
 * `cancelled`, and `done {cancelled: true}` closes the turn. Nothing runs after it: no
 * post-processing, no citations, no summary refresh.
 *
 * A tutor turn's one job checks the flag before each stage and ends the turn itself; in a flow
 * queued by an earlier release the stages before generation only pass the cancel on
 * (`{cancelled: true}` as their return value), so the one place that ends it is its last stage.
 */
import type { Job } from "bullmq";
import type { z } from "zod";
import { insertAssistantMessageOnce } from "../../db/queries/chat-messages";
import type { TurnEventPayloads } from "../../queues/events/contract";
import { cancelledStageResult, childResult } from "../../queues/payloads";
import { isTurnCancelled } from "../../queues/turn-cancel";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "./turn-emitter";

/** What a stage returns instead of its result once the turn is cancelled. */
export const CANCELLED_STAGE = { cancelled: true } as const satisfies z.infer<typeof cancelledStageResult>;

/**
 * Whether this stage should stop: the flag is set, or an earlier stage of the flow already
 * stopped. Both are read at once; the earlier stages' results come back for the stage to use.
 * A turn that is one job (no flow) has no earlier stage jobs: pass no `flowJob` and only the flag is read.
 */
export async function cancelledBeforeStage(
  deps: WorkerDeps,
  flowJob: Job | undefined,
  turnId: string,
): Promise<{ cancelled: boolean; children: Record<string, unknown> }> {
  const [flagged, children] = await Promise.all([isTurnCancelled(deps.redis, turnId), flowJob ? flowJob.getChildrenValues() : {}]);
  return { cancelled: flagged || childResult(children, cancelledStageResult) !== undefined, children };
}

export interface CancelledAnswer {
  /** What had streamed to the client when the cancel landed. */
  content: string;
  metadata: Record<string, unknown>;
  done?: Omit<TurnEventPayloads["done"], "messageId" | "tokensUsed" | "cancelled">;
}

export async function endCancelledTurn(
  deps: WorkerDeps,
  ids: { orgId: string; sessionId: string; turnId: string },
  events: TurnEmitter,
  answer: CancelledAnswer,
): Promise<{ messageId: string; cancelled: boolean }> {
  const { row } = await insertAssistantMessageOnce(deps.db, {
    ...ids,
    content: answer.content,
    status: "cancelled",
    metadata: { ...answer.metadata, cancelled: true },
  });
  // A retry of a turn that was already stored says how it really ended.
  const cancelled = row.status === "cancelled";
  const tokensUsed = Number((row.metadata as { tokens_used?: number }).tokens_used ?? 0);
  await events.emit("done", { messageId: row.id, tokensUsed, ...answer.done, cancelled });
  deps.log.info({ turnId: ids.turnId, sessionId: ids.sessionId, partialChars: row.content.length }, "turn cancelled");
  return { messageId: row.id, cancelled };
}
