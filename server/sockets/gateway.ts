/**
 * The Socket.IO gateway. The handshake must carry a valid JWT; a socket joins its
 * `user:<id>` room at once and a `session:<id>` room only after the database says the
 * session is its own. Turn events come from workers over one Redis channel and are handed to
 * local sockets through TurnDelivery (replay + exactly-once); other rooms use the Redis
 * adapter, so any server node can deliver. This module puts the gateway together; the handshake
 * is handshake.ts, the session rooms room-membership.ts, the other requests watch-and-cancel.ts,
 * the feed from the workers live-feed.ts.
 */
import type { Server as HttpServer } from "node:http";
import { createAdapter, createShardedAdapter } from "@socket.io/redis-adapter";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Server, type Socket } from "socket.io";
import { roomForSignIn, roomForUser, type ClientToServerEvents, type ServerToClientEvents } from "../../queues/events/contract";
import type { ServerDeps } from "../deps";
import { SocketReauth, type AuthenticatedSocketData } from "./reauth";
import { TurnDelivery } from "./turn-delivery";
import { RateLimiter } from "../middleware/rate-limit";
import { SocketLimits } from "./socket-limits";
import { SocketCap } from "./socket-cap";
import { limitedAck, SocketEventGuard } from "./event-guard";
import { SOCKET_ADAPTER_KEY } from "../../queues/events/user-events";
import { admitSockets } from "./handshake";
import { followLiveFeed } from "./live-feed";
import { handleRoomMembership } from "./room-membership";
import { handleWatchAndCancel } from "./watch-and-cancel";

type SocketData = AuthenticatedSocketData;

export type GatewayServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** What a connected socket's handlers work with. */
export interface ConnectionScope {
  deps: ServerDeps;
  log: Logger;
  reauth: SocketReauth;
  delivery: TurnDelivery;
  /** The user's shared window for this kind of request: null within it, else the ack that refuses. */
  userLimited: (operation: "join" | "event") => Promise<ReturnType<typeof limitedAck> | null>;
}

export interface Gateway {
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  close(): Promise<void>;
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

  admitSockets(io, deps, limits, cap);

  io.on("connection", (socket) => {
    const { principal } = socket.data;
    deps.metrics.sockets.inc();
    socket.once("disconnect", () => deps.metrics.sockets.dec());
    void socket.join(roomForUser(principal.userId));
    if (socket.data.signInId) void socket.join(roomForSignIn(socket.data.signInId));
    reauth.track(socket);
    // Every event passes the socket's own token bucket first (event-guard.ts); then each handler
    // validates its payload, checks the user's shared window and cheap rules, and only then reads.
    guard.attach(socket);
    const userLimited = async (operation: "join" | "event") => {
      const limited = await limits.check(operation, principal.userId);
      return limited ? limitedAck(limited.message, ((limited.details?.retry_after as number) ?? 1) * 1000) : null;
    };
    const scope: ConnectionScope = { deps, log, reauth, delivery, userLimited };
    handleRoomMembership(socket, scope);
    handleWatchAndCancel(socket, scope);
  });

  await followLiveFeed(io, turnSub, deps, delivery, log);

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
