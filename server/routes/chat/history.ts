/**
 * One page of a conversation's history as GET /api/v1/chat/sessions/:id/messages answers it:
 * the caller's own session only (an admin assistant session for admins only), each question
 * with the files that were sent with it, so a reloaded conversation shows them where they went.
 */
import { sentAttachmentsOf, type SentAttachment } from "../../../db/queries/chat-attachments";
import { isSessionMessage, listSessionMessagePage } from "../../../db/queries/chat-messages";
import { findOwnedSession } from "../../../db/queries/chat-sessions";
import type { Db } from "../../../db/knex";
import type { Principal } from "../../auth/tokens";
import { badRequest, forbidden, notFound } from "../../errors";

export const ADMIN_TRANSCRIPTS = "Admin assistant conversations are for admins only";

const presentFile = (file: SentAttachment) => ({
  id: file.id,
  filename: file.filename,
  format: file.format,
  size_bytes: file.size_bytes,
  status: file.status,
});

export async function sessionHistoryPage(db: Db, principal: Principal, sessionId: string, page: { before?: string | undefined; limit: number }) {
  const owner = { orgId: principal.orgId, userId: principal.userId };
  const session = await findOwnedSession(db, owner, sessionId);
  if (!session) throw notFound("Chat session");
  if (session.agent_type === "admin" && principal.role !== "admin") throw forbidden(ADMIN_TRANSCRIPTS);
  if (page.before && !(await isSessionMessage(db, principal.orgId, sessionId, page.before)))
    throw badRequest("before must be the id of a message in this session");
  const { messages, nextBefore } = await listSessionMessagePage(db, principal.orgId, sessionId, page);
  const questions = messages.filter((m) => m.role === "user").map((m) => m.id);
  const files = await sentAttachmentsOf(db, owner, sessionId, questions);
  return {
    session: { id: session.id, agent_type: session.agent_type, title: session.title, summary: session.summary },
    messages: messages.map((m) => ({
      id: m.id,
      turn_id: m.turn_id,
      role: m.role,
      content: m.content,
      status: m.status,
      metadata: m.metadata,
      attachments: files.filter((file) => file.message_id === m.id).map(presentFile),
      created_at: m.created_at,
    })),
    has_more: nextBefore !== null,
    next_before: nextBefore,
  };
}
