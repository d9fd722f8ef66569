/**
 * Cancelling a chat turn, for the HTTP route and the socket `cancel` event alike. Only the
 * turn's owner may (anyone else gets the same 404 as for a turn that does not exist), and only
 * while it runs. The server only raises the turn's cancel flag: the worker running the turn
 * aborts the model stream, stores the partial answer as `cancelled` and ends the turn with
 * `done {cancelled: true}`. A cancel racing the turn's own end loses quietly: `done` is the
 * authority on how the turn ended.
 */
import { findOwnedTurn } from "../db/queries/chat-messages";
import type { Owner } from "../db/queries/chat-sessions";
import { requestTurnCancel } from "../queues/turn-keys";
import type { CommandDeps } from "./deps";
import { Refusal } from "../lib/refusal";

export interface CancelRequested {
  turn_id: string;
  status: "cancelling";
}

export async function cancelTurn(deps: CommandDeps, owner: Owner, turnId: string): Promise<CancelRequested> {
  const turn = await findOwnedTurn(deps.db, owner, turnId);
  if (!turn) throw Refusal.notFound("Chat turn");
  // An answer stored (any status) ends a turn; a last stage that failed for good ends it too,
  // even when no failed message was written.
  const ended =
    turn.answerStatus ?? ((await deps.producer.turnFinalStageState(turn.agentType, { sessionId: turn.sessionId, turnId })) === "failed" ? "failed" : null);
  if (ended)
    throw new Refusal("conflict", "TURN_ALREADY_FINISHED", `This turn has already ended (${ended}); there is nothing to cancel`, { turn_status: ended });
  await requestTurnCancel(deps.redis, turnId);
  deps.log.info({ turnId, sessionId: turn.sessionId, agent: turn.agentType }, "turn cancel requested");
  return { turn_id: turnId, status: "cancelling" };
}
