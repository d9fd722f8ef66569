/**
 * The server's half of the live feed: one subscriber for the turn-event, job-event (and on a
 * cluster user-event) channels; each turn event goes to this node's sockets in its room through
 * TurnDelivery (replay + exactly-once), a user event to its user room, a job end to the metrics.
 * After the subscriber reconnects, every socket catches up from the logs.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { contextFromTraceparent, inSpan, SpanKind, type SpanOptions } from "../../lib/telemetry/spans";
import type { TurnEventEnvelope } from "../../queues/events/contract";
import { feedChannels, feedOf, subscribeFeeds } from "../../queues/events/feed";
import { JOB_EVENTS_CHANNEL, parseJobEnd, parseReplicaSkips } from "../../queues/events/job-events";
import { TURN_EVENTS_CHANNEL } from "../../queues/events/stream-keys";
import { parseEnvelopes } from "../../queues/events/stream-reader";
import { USER_EVENTS_CHANNEL, type UserEventMessage } from "../../queues/events/user-events";
import type { ServerDeps } from "../deps";
import type { GatewayServer } from "./gateway";
import type { LoggedPayload, TurnDelivery } from "./turn-delivery";

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

/** Subscribes `turnSub` to the feeds and hands what arrives to this node's sockets. */
export async function followLiveFeed(io: GatewayServer, turnSub: Redis, deps: ServerDeps, delivery: TurnDelivery, log: Logger): Promise<void> {
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
