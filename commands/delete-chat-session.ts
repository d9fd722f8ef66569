/**
 * A person deletes one of their chat sessions (its messages go by cascade), with its
 * `chat_session.deleted` audit event, in one transaction; the session's turn streams are
 * forgotten once it has committed.
 */
import { recordAudit } from "../db/queries/audit-log";
import { deleteOwnedSession } from "../db/queries/chat-session-writes";
import type { Owner } from "../db/queries/chat-sessions";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function deleteChatSession(deps: Pick<CommandDeps, "db" | "events">, owner: Owner, sessionId: string): Promise<void> {
  await withTransaction(deps, async (trx) => {
    if (!(await deleteOwnedSession(trx, owner, sessionId))) throw Refusal.notFound("Chat session");
    await recordAudit(trx, {
      name: "chat_session.deleted",
      orgId: owner.orgId,
      actor: { type: "person", id: owner.userId },
      target: { type: "chat_session", id: sessionId },
    });
  });
  await deps.events.forgetSession(sessionId);
}
