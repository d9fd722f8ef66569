/**
 * Ending a chat turn its owner cancelled (tutor and admin assistant alike): the partial answer,
 * exactly what the client was shown (possibly nothing), is stored once with status
 * `cancelled`, and `done {cancelled: true}` closes the turn. Nothing runs after it: no
 * post-processing, no citations, no summary refresh. The turn's kept state is cleared by the
 * caller (turn-state.ts), which knows what it kept.
 */
import { insertAssistantMessageOnce } from "../../db/queries/chat-messages";
import type { StoredMetadata } from "../../db/queries/message-metadata";
import type { TurnEventPayloads } from "../../queues/events/contract";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "./turn-emitter";

export interface CancelledAnswer {
  /** What had streamed to the client when the cancel landed. */
  content: string;
  metadata: StoredMetadata;
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
  const tokensUsed = row.metadata.tokens_used ?? 0;
  await events.emit("done", { messageId: row.id, tokensUsed, ...answer.done, cancelled });
  deps.log.info({ turnId: ids.turnId, sessionId: ids.sessionId, partialChars: row.content.length }, "turn cancelled");
  return { messageId: row.id, cancelled };
}
