/**
 * A socket's session rooms: `join` admits it to `session:<id>` only after the database says the
 * session is its user's (and an admin session its admin's), then replays the turn it asks for or
 * the session's latest; `leave` takes it out.
 */
import { z } from "zod";
import { isSessionTurn } from "../../db/queries/chat-messages";
import { findOwnedSession } from "../../db/queries/chat-sessions";
import { roomForSession, type JoinAck } from "../../queues/events/contract";
import type { ServerDeps } from "../deps";
import type { ConnectionScope, GatewaySocket } from "./gateway";

const joinRequest = z.object({
  sessionId: z.uuid(),
  turnId: z.uuid().optional(),
  lastSeq: z.number().int().min(0).optional(),
});

const leaveRequest = z.object({ sessionId: z.uuid() });

async function turnBelongsToSession(deps: ServerDeps, orgId: string, sessionId: string, turnId: string): Promise<boolean> {
  return isSessionTurn(deps.db, orgId, sessionId, turnId);
}

/** The `join` and `leave` handlers of one connected socket. */
export function handleRoomMembership(socket: GatewaySocket, { deps, log, reauth, delivery, userLimited }: ConnectionScope): void {
  const { principal } = socket.data;
  socket.on("join", async (raw, ack) => {
    const reply = typeof ack === "function" ? ack : () => undefined;
    const parsed = joinRequest.safeParse(raw);
    if (!parsed.success)
      return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "join needs {sessionId: UUID, turnId?: UUID, lastSeq?: integer}" } });
    const limited = await userLimited("join");
    if (limited) return reply(limited);
    const { sessionId, turnId: resumeTurn, lastSeq } = parsed.data;
    try {
      const denied = await reauth.recheck(socket);
      if (denied) {
        reply({ ok: false, error: denied });
        return reauth.cut(socket, denied);
      }
      const session = await findOwnedSession(deps.db, { orgId: principal.orgId, userId: principal.userId }, sessionId);
      if (!session) return reply({ ok: false, error: { code: "NOT_FOUND", message: "Chat session not found" } });
      // Ownership already holds; recheck read the role afresh, so an admin demoted since connecting is shut out.
      if (session.agent_type === "admin" && principal.role !== "admin") {
        return reply({ ok: false, error: { code: "FORBIDDEN", message: "Admin assistant sessions are for admins only" } });
      }
      if (resumeTurn && !(await turnBelongsToSession(deps, principal.orgId, sessionId, resumeTurn))) {
        return reply({ ok: false, error: { code: "NOT_FOUND", message: "That turn is not part of this session" } });
      }
      await socket.join(roomForSession(sessionId));
      // Live events may already be flowing; replay runs in the same per-socket queue.
      const turnId = resumeTurn ?? (await deps.events.latestTurn(sessionId));
      const replayed = turnId ? await delivery.replay(socket, sessionId, turnId, resumeTurn ? (lastSeq ?? 0) : 0) : 0;
      log.info({ sessionId, turnId, lastSeq, replayed, socketId: socket.id, userId: principal.userId }, "socket joined session");
      reply({ ok: true, turnId, replayed } satisfies JoinAck);
    } catch (error) {
      log.error({ err: error, sessionId }, "join failed");
      reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not join the session; please retry" } });
    }
  });

  socket.on("leave", async (raw, ack) => {
    const parsed = leaveRequest.safeParse(raw);
    if (parsed.success) await socket.leave(roomForSession(parsed.data.sessionId));
    if (typeof ack === "function") ack({ ok: parsed.success });
  });
}
