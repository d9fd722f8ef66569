/**
 * The Socket.IO gateway. The handshake must carry a valid JWT; a socket joins its
 * `user:<id>` room at once and a `session:<id>` room only after the database says the
 * session is its own. Turn events come from workers over one Redis channel and are handed to
 * local sockets through TurnDelivery (replay + exactly-once); other rooms use the Redis
 * adapter, so any server node can deliver.
 */
import type { Server as HttpServer } from "node:http";
import { createAdapter } from "@socket.io/redis-adapter";
import type { Redis } from "ioredis";
import { Server, type Socket } from "socket.io";
import { z } from "zod";
import { findOwnedSession } from "../../db/queries/chat-sessions";
import { findAction } from "../../db/queries/admin-actions";
import { findUser } from "../../db/queries/users";
import { TURN_EVENTS_CHANNEL, parseEnvelope } from "../../queues/events/turn-stream";
import { roomForSession, roomForUser, type ClientToServerEvents, type JoinAck, type ServerToClientEvents } from "../../queues/events/contract";
import { authenticate } from "../auth/middleware";
import type { Principal } from "../auth/tokens";
import type { ServerDeps } from "../deps";
import { TurnDelivery, type LoggedPayload } from "./turn-delivery";
import { SOCKET_ADAPTER_KEY } from "../../queues/events/user-events";

const watchActionRequest = z.object({ actionId: z.uuid(), lastSeq: z.number().int().min(0).optional() });

const joinRequest = z.object({
  sessionId: z.uuid(),
  turnId: z.uuid().optional(),
  lastSeq: z.number().int().min(0).optional(),
});

interface SocketData {
  principal: Principal;
}

export type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export interface Gateway {
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  close(): Promise<void>;
}

/** The caller's role as the database has it now (null when the account is gone or deactivated). */
async function currentRole(deps: ServerDeps, principal: Principal): Promise<Principal["role"] | null> {
  const user = await findUser(deps.db, principal.orgId, principal.userId);
  return user?.is_active ? user.role : null;
}

async function turnBelongsToSession(deps: ServerDeps, orgId: string, sessionId: string, turnId: string): Promise<boolean> {
  const row = await deps.db("chat_messages").where({ org_id: orgId, session_id: sessionId, turn_id: turnId, role: "user" }).first("id");
  return Boolean(row);
}

export async function attachGateway(httpServer: HttpServer, deps: ServerDeps, makeRedis: () => Redis): Promise<Gateway> {
  const pub = makeRedis();
  const sub = makeRedis();
  const turnSub = makeRedis();
  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(httpServer, {
    path: "/socket.io",
    adapter: createAdapter(pub, sub, { key: SOCKET_ADAPTER_KEY }),
    cors: { origin: true, credentials: true },
  });
  const delivery = new TurnDelivery(deps.events);
  const log = deps.log.child({ component: "gateway" });

  io.use(async (socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const principal = typeof token === "string" ? await authenticate(deps, token).catch(() => null) : null;
    if (!principal) return next(Object.assign(new Error("UNAUTHORIZED: a valid token is required in auth.token"), { data: { code: "UNAUTHORIZED" } }));
    socket.data.principal = principal;
    next();
  });

  io.on("connection", (socket) => {
    const { principal } = socket.data;
    deps.metrics.sockets.inc();
    socket.once("disconnect", () => deps.metrics.sockets.dec());
    void socket.join(roomForUser(principal.userId));

    socket.on("join", async (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => undefined;
      const parsed = joinRequest.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "join needs {sessionId: UUID, turnId?: UUID, lastSeq?: integer}" } });
      const { sessionId, turnId: resumeTurn, lastSeq } = parsed.data;
      try {
        const session = await findOwnedSession(deps.db, { orgId: principal.orgId, userId: principal.userId }, sessionId);
        if (!session) return reply({ ok: false, error: { code: "NOT_FOUND", message: "Chat session not found" } });
        // Ownership already holds; the role is read afresh, so an admin demoted since connecting is shut out.
        if (session.agent_type === "admin" && (await currentRole(deps, principal)) !== "admin") {
          return reply({ ok: false, error: { code: "FORBIDDEN", message: "Admin assistant sessions are for admins only" } });
        }
        if (resumeTurn && !(await turnBelongsToSession(deps, principal.orgId, sessionId, resumeTurn))) {
          return reply({ ok: false, error: { code: "NOT_FOUND", message: "That turn is not part of this session" } });
        }
        await socket.join(roomForSession(sessionId));
        // Live events may already be flowing; replay runs in the same per-socket queue.
        const turnId = resumeTurn ?? (await deps.events.latestTurn(sessionId));
        const replayed = turnId ? await delivery.replay(socket, sessionId, turnId, resumeTurn ? (lastSeq ?? 0) : 0) : 0;
        reply({ ok: true, turnId, replayed } satisfies JoinAck);
      } catch (error) {
        log.error({ err: error, sessionId }, "join failed");
        reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not join the session; please retry" } });
      }
    });

    socket.on("watch_action", async (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => undefined;
      const parsed = watchActionRequest.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "watch_action needs {actionId: UUID, lastSeq?: integer}" } });
      if ((await currentRole(deps, principal)) !== "admin") return reply({ ok: false, error: { code: "FORBIDDEN", message: "Admin actions are for admins only" } });
      try {
        const action = await findAction(deps.db, principal.orgId, parsed.data.actionId);
        if (!action) return reply({ ok: false, error: { code: "NOT_FOUND", message: "Admin action not found" } });
        const replayed = await delivery.replayAction(socket, action.id, parsed.data.lastSeq ?? 0);
        reply({ ok: true, replayed });
      } catch (error) {
        log.error({ err: error, actionId: parsed.data.actionId }, "watch_action failed");
        reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not replay the action; please retry" } });
      }
    });

    socket.on("leave", async (raw, ack) => {
      const sessionId = typeof raw?.sessionId === "string" ? raw.sessionId : "";
      await socket.leave(roomForSession(sessionId));
      if (typeof ack === "function") ack({ ok: true });
    });
  });

  await turnSub.subscribe(TURN_EVENTS_CHANNEL);
  turnSub.on("message", (_channel, message) => {
    const envelope = parseEnvelope(message);
    if (!envelope) return;
    deps.metrics.observeTurnEvent(envelope);
    const members = io.sockets.adapter.rooms.get(envelope.room);
    if (!members) return;
    const payload = { ...envelope.data, seq: envelope.seq } as LoggedPayload;
    for (const socketId of members) {
      const socket = io.sockets.sockets.get(socketId);
      if (socket) void delivery.deliver(socket, envelope.event, payload).catch((error) => log.warn({ err: error }, "turn event delivery failed"));
    }
  });

  return {
    io,
    async close() {
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await Promise.allSettled([turnSub.quit(), pub.quit(), sub.quit()]);
    },
  };
}
