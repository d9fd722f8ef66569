/**
 * The Socket.IO gateway. The handshake must carry a valid JWT; a socket joins its
 * `user:<id>` room at once and a `session:<id>` room only after the database says the
 * session is its own. Turn events come from workers over one Redis channel and are handed to
 * local sockets through TurnDelivery (replay + exactly-once); other rooms use the Redis
 * adapter, so any server node can deliver.
 */
import type { Server as HttpServer } from "node:http";
import { createAdapter, createShardedAdapter } from "@socket.io/redis-adapter";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Server } from "socket.io";
import { z } from "zod";
import { isSessionTurn } from "../../db/queries/chat-messages";
import { findOwnedSession } from "../../db/queries/chat-sessions";
import { findAction } from "../../db/queries/admin-actions";
import { TURN_EVENTS_CHANNEL, parseEnvelopes } from "../../queues/events/turn-stream";
import { JOB_EVENTS_CHANNEL, parseJobEnd, parseReplicaSkips } from "../../queues/events/job-events";
import { feedChannels, feedOf, subscribeFeeds } from "../../queues/events/feed";
import { USER_EVENTS_CHANNEL, type UserEventMessage } from "../../queues/events/user-events";
import {
  roomForSession,
  roomForUser,
  type ClientToServerEvents,
  type JoinAck,
  type ServerToClientEvents,
  type TurnEventEnvelope,
} from "../../queues/events/contract";
import { confirmOrRefuse } from "../auth/middleware";
import type { ServerDeps } from "../deps";
import { SocketReauth, type AuthenticatedSocketData } from "./reauth";
import { TurnDelivery, type LoggedPayload } from "./turn-delivery";
import { RateLimiter } from "../middleware/rate-limit";
import { SocketLimits } from "./socket-limits";
import { SocketCap } from "./socket-cap";
import { limitedAck, SocketEventGuard } from "./event-guard";
import { SOCKET_ADAPTER_KEY } from "../../queues/events/user-events";
import { cancelTurn } from "../../commands/cancel-turn";
import { Refusal } from "../../lib/refusal";
import { contextFromTraceparent, inSpan, SpanKind, type SpanOptions } from "../../lib/telemetry/spans";

const watchActionRequest = z.object({ actionId: z.uuid(), lastSeq: z.number().int().min(0).optional() });

const cancelRequest = z.object({ turnId: z.uuid() });

const joinRequest = z.object({
  sessionId: z.uuid(),
  turnId: z.uuid().optional(),
  lastSeq: z.number().int().min(0).optional(),
});

const leaveRequest = z.object({ sessionId: z.uuid() });

type SocketData = AuthenticatedSocketData;

export interface Gateway {
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  close(): Promise<void>;
}

async function turnBelongsToSession(deps: ServerDeps, orgId: string, sessionId: string, turnId: string): Promise<boolean> {
  return isSessionTurn(deps.db, orgId, sessionId, turnId);
}

const isTurnEnd = (envelope: TurnEventEnvelope): boolean =>
  envelope.event === "done" || (envelope.event === "error" && !(envelope.data as { willRetry?: boolean }).willRetry);

/** The last line of a turn's trail in the server log; every node sees the event, the one whose sockets got it says so at info. */
function logTurnEnd(log: Logger, envelope: TurnEventEnvelope, localSockets: number): void {
  const data = envelope.data as { sessionId?: string; turnId?: string; code?: string; cancelled?: boolean };
  const line = {
    sessionId: data.sessionId,
    turnId: data.turnId,
    event: envelope.event,
    seq: envelope.seq,
    code: data.code,
    cancelled: data.cancelled,
    localSockets,
  };
  if (localSockets > 0) log.info(line, "turn ended; delivered to local sockets");
  else log.debug(line, "turn ended; no local socket in its session");
}

export async function attachGateway(httpServer: HttpServer, deps: ServerDeps, makeRedis: () => Redis): Promise<Gateway> {
  const pub = makeRedis();
  const sub = makeRedis();
  const turnSub = makeRedis();
  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(httpServer, {
    path: "/socket.io",
    // On a cluster, Redis 7 sharded pub/sub: each room's channel lives on one node instead of every message reaching every node.
    adapter: pub.isCluster ? createShardedAdapter(pub, sub, { channelPrefix: SOCKET_ADAPTER_KEY }) : createAdapter(pub, sub, { key: SOCKET_ADAPTER_KEY }),
    cors: { origin: true, credentials: true },
  });
  const delivery = new TurnDelivery(deps.events, deps.metrics);
  const log = deps.log.child({ component: "gateway" });
  const limits = new SocketLimits(
    new RateLimiter(deps.redis),
    {
      connectionsPerMinute: deps.config.sockets.RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE,
      joinsPerMinute: deps.config.sockets.RATE_LIMIT_SOCKET_JOINS_PER_MINUTE,
      eventsPerMinute: deps.config.sockets.RATE_LIMIT_SOCKET_EVENTS_PER_MINUTE,
    },
    log,
  );
  const guard = new SocketEventGuard(
    {
      burst: deps.config.sockets.SOCKET_EVENT_BURST,
      perSecond: deps.config.sockets.SOCKET_EVENTS_PER_SECOND,
      floodDisconnectAfter: deps.config.sockets.SOCKET_FLOOD_DISCONNECT_AFTER,
    },
    log,
  );
  const cap = new SocketCap(deps.redis, deps.config.sockets.SOCKET_MAX_PER_USER, log);
  cap.start(function* () {
    for (const socket of io.sockets.sockets.values()) if (socket.data.principal) yield { userId: socket.data.principal.userId, socketId: socket.id };
  });
  const reauth = new SocketReauth(io, deps, log, deps.config.sockets.SOCKET_REAUTH_INTERVAL_MS);
  reauth.start();

  // The code stays UNAUTHORIZED (what clients act on); a provider token's refusal adds why, as `reason`.
  const unauthorized = (reason?: string) =>
    Object.assign(new Error("UNAUTHORIZED: a valid token is required in auth.token"), {
      data: reason && reason !== "UNAUTHORIZED" ? { code: "UNAUTHORIZED", reason } : { code: "UNAUTHORIZED" },
    });
  // Cheapest first: the signature (no I/O but a provider's cached JWKS and, for a provider's token,
  // its cached identity link), the user's handshake rate (memory, then Redis), the
  // user's open sockets (memory, then Redis); only then the database, once per admitted socket.
  io.use(async (socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const checked = typeof token === "string" ? await deps.tokens.check(token).catch(() => null) : null;
    if (!checked?.ok) return next(unauthorized(checked?.code));
    const signed = checked.token;
    const { userId } = signed.principal;
    const refused = await limits.check("connection", userId);
    if (refused)
      return next(Object.assign(new Error(`RATE_LIMITED: ${refused.message}`), { data: { code: "RATE_LIMITED", retry_after: refused.details?.retry_after } }));
    const holder = { userId, socketId: socket.id };
    if (!(await cap.claim(holder, io.sockets.adapter.rooms.get(roomForUser(userId))?.size ?? 0))) {
      const message = `TOO_MANY_SOCKETS: at most ${deps.config.sockets.SOCKET_MAX_PER_USER} open connections per user; close another tab or connection first`;
      return next(Object.assign(new Error(message), { data: { code: "TOO_MANY_SOCKETS" } }));
    }
    const confirmed = await confirmOrRefuse(deps, signed).catch(() => null);
    if (!confirmed?.ok) {
      await cap.release(holder);
      return next(unauthorized(confirmed?.code));
    }
    const verified = confirmed.token;
    socket.data.principal = verified.principal;
    socket.data.expiresAt = verified.expiresAt;
    socket.once("disconnect", () => void cap.release(holder));
    next();
  });

  io.on("connection", (socket) => {
    const { principal } = socket.data;
    deps.metrics.sockets.inc();
    socket.once("disconnect", () => deps.metrics.sockets.dec());
    void socket.join(roomForUser(principal.userId));
    reauth.track(socket);
    // Every event passes the socket's own token bucket first (event-guard.ts); then each handler
    // validates its payload, checks the user's shared window and cheap rules, and only then reads.
    guard.attach(socket);
    const userLimited = async (operation: "join" | "event") => {
      const limited = await limits.check(operation, principal.userId);
      return limited ? limitedAck(limited.message, ((limited.details?.retry_after as number) ?? 1) * 1000) : null;
    };

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

    socket.on("watch_action", async (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => undefined;
      const parsed = watchActionRequest.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "watch_action needs {actionId: UUID, lastSeq?: integer}" } });
      // The role as of the handshake or the last re-check: an employee is refused without a read.
      const forbidden = { ok: false as const, error: { code: "FORBIDDEN", message: "Admin actions are for admins only" } };
      if (principal.role !== "admin") return reply(forbidden);
      const limited = await userLimited("event");
      if (limited) return reply(limited);
      const denied = await reauth.recheck(socket).catch(() => null);
      if (denied) {
        reply({ ok: false, error: denied });
        return reauth.cut(socket, denied);
      }
      // The re-check read the role afresh: an admin demoted since is refused too.
      if (principal.role !== "admin") return reply(forbidden);
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

    socket.on("cancel", async (raw, ack) => {
      const reply = typeof ack === "function" ? ack : () => undefined;
      const parsed = cancelRequest.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "cancel needs {turnId: UUID}" } });
      const limited = await userLimited("event");
      if (limited) return reply(limited);
      try {
        const denied = await reauth.recheck(socket);
        if (denied) {
          reply({ ok: false, error: denied });
          return reauth.cut(socket, denied);
        }
        await cancelTurn(deps, { orgId: principal.orgId, userId: principal.userId }, parsed.data.turnId);
        reply({ ok: true, turnId: parsed.data.turnId });
      } catch (error) {
        if (error instanceof Refusal) return reply({ ok: false, error: { code: error.code, message: error.message } });
        log.error({ err: error, turnId: parsed.data.turnId }, "cancel failed");
        reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not cancel the turn; please retry" } });
      }
    });

    socket.on("leave", async (raw, ack) => {
      const parsed = leaveRequest.safeParse(raw);
      if (parsed.success) await socket.leave(roomForSession(parsed.data.sessionId));
      if (typeof ack === "function") ack({ ok: parsed.success });
    });
  });

  // Job-end messages ride this subscriber too: metrics only, see queues/events/job-events.ts.
  // On a cluster every feed is one sharded channel per key tag, and user-room events come this way too (feed.ts).
  const channels = feedChannels(
    turnSub.isCluster,
    turnSub.isCluster ? [TURN_EVENTS_CHANNEL, JOB_EVENTS_CHANNEL, USER_EVENTS_CHANNEL] : [TURN_EVENTS_CHANNEL, JOB_EVENTS_CHANNEL],
  );
  await subscribeFeeds(turnSub, channels);
  // Messages published while the subscriber was reconnecting are gone: once it is subscribed
  // again (ioredis resubscribes right after "ready"; subscribing again resolves after that),
  // every socket fetches what it missed from the logs.
  let feedCut = false;
  turnSub.on("close", () => {
    feedCut = true;
  });
  turnSub.on("ready", () => {
    if (!feedCut) return;
    feedCut = false;
    setImmediate(() => {
      subscribeFeeds(turnSub, channels)
        .then(() => {
          for (const socket of io.sockets.sockets.values())
            void delivery.catchUp(socket).catch((error) => log.warn({ err: error }, "catch-up after reconnect failed"));
        })
        .catch((error) => log.warn({ err: error }, "resubscribing the turn-event feed failed"));
    });
  });
  const deliveryFailed = (error: unknown): void => void log.warn({ err: error }, "turn event delivery failed");
  const onMessage = (channel: string, message: string): void => {
    const feed = feedOf(channel);
    if (feed === USER_EVENTS_CHANNEL) {
      const user = parseUserEvent(message);
      // Workers' events are typed where they are sent (UserEventPayloads); here they only pass through.
      if (user) (io.local.to(user.room) as unknown as { emit(event: string, data: unknown): void }).emit(user.event, user.data);
      if (user?.disconnect === true) io.local.in(user.room).disconnectSockets(true);
      return;
    }
    if (feed === JOB_EVENTS_CHANNEL) {
      const end = parseJobEnd(message);
      if (end) deps.metrics.observeJobEnd(end);
      const skips = end ? null : parseReplicaSkips(message);
      if (skips) deps.metrics.observeReplicaSkips(skips);
      return;
    }
    for (const envelope of parseEnvelopes(message)) {
      deps.metrics.observeTurnEvent(envelope);
      const members = io.sockets.adapter.rooms.get(envelope.room);
      if (isTurnEnd(envelope)) logTurnEnd(log, envelope, members?.size ?? 0);
      if (!members) continue;
      const payload = { ...envelope.data, seq: envelope.seq } as LoggedPayload;
      const deliverToRoom = (): void => {
        for (const socketId of members) {
          const socket = io.sockets.sockets.get(socketId);
          if (socket) delivery.deliver(socket, envelope.event, payload)?.catch(deliveryFailed);
        }
      };
      // A traced turn's first token: its delivery to the sockets is a span of the turn's trace.
      if (envelope.trace)
        inSpan("socket.deliver first token", firstTokenSpan(envelope, envelope.trace, members.size), async () => deliverToRoom()).catch(deliveryFailed);
      else deliverToRoom();
    }
  };
  turnSub.on("message", onMessage);
  turnSub.on("smessage", onMessage);

  return {
    io,
    async close() {
      reauth.close();
      cap.close();
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await Promise.allSettled([turnSub.quit(), pub.quit(), sub.quit()]);
    },
  };
}

/** The first token's delivery span: a child of the worker's span that streamed it, whose context came with the event. */
function firstTokenSpan(envelope: TurnEventEnvelope, traceparent: string, sockets: number): SpanOptions {
  return {
    kind: SpanKind.PRODUCER,
    parent: contextFromTraceparent(traceparent),
    attributes: {
      "messaging.system": "socket.io",
      "messaging.destination.name": envelope.room,
      "skillnet.turn_id": "turnId" in envelope.data ? envelope.data.turnId : "",
      "skillnet.event.seq": envelope.seq,
      "skillnet.sockets": sockets,
    },
  };
}

/** A user-room event from the cluster feed, or null when the message is not one. */
function parseUserEvent(message: string): UserEventMessage | null {
  try {
    const parsed = JSON.parse(message) as Partial<UserEventMessage>;
    return typeof parsed.room === "string" && typeof parsed.event === "string" ? (parsed as UserEventMessage) : null;
  } catch {
    return null;
  }
}
