/**
 * Events for a user's own room (`user:<id>`): document status now, admin actions later.
 * Workers publish through the Socket.IO Redis emitter, so whichever server node holds the
 * user's socket delivers them. On a Redis Cluster the emitter's classic PUBLISH would be copied
 * to every node, and the servers' sharded adapter does not listen to it: there the event goes
 * on the user-event feed (sharded pub/sub, queues/events/feed.ts) that every server reads and
 * hands to the sockets of the room it holds.
 */
import { Emitter } from "@socket.io/redis-emitter";
import type { Redis } from "ioredis";
import type { DocumentStatus } from "../../lib/document-status";
import { channelName } from "../keys";
import { type AttachmentStatusEvent, type AuthExpired, type CatalogImportEvent, type PersonDataEvent, roomForSignIn, roomForUser } from "./contract";
import { feedChannel, publishFeed } from "./feed";

/** On a cluster: the feed of user-room events, `{room, event, data}` per message. */
export const USER_EVENTS_CHANNEL = channelName("userEventsChannel");

/** One user-room event as it travels on that feed. */
export interface UserEventMessage {
  room: string;
  event: string;
  data: unknown;
  /** The room's sockets are disconnected once the event is sent (`cutSockets`). */
  disconnect?: boolean;
}

/** Why a socket whose account was deactivated, deleted or erased is cut (the gateway's re-check and `cutSockets` alike). */
export const ACCOUNT_INACTIVE: AuthExpired = { code: "ACCOUNT_INACTIVE", message: "This account has been deactivated or deleted" };
export const SIGNED_OUT: AuthExpired = { code: "SIGNED_OUT", message: "This sign-in has ended; sign in again" };

/** The adapter key the gateway uses; emitter and adapter must agree on it. */
export const SOCKET_ADAPTER_KEY = "skillnet-socket.io";

export interface UserEventPayloads {
  /** `error` is the readable reason of a FAILED, `error_code` its stable code (EXTRACTION_TIMEOUT, …). */
  document_status: { documentId: string; status: DocumentStatus; progress?: { done: number; total: number }; error?: string; error_code?: string };
  /** A bulk catalog import of the organisation moved (to every active admin): `done` of `total` records, and what became of them. */
  catalog_import: CatalogImportEvent;
  person_data: PersonDataEvent;
  attachment_status: AttachmentStatusEvent;
}

export class UserEventPublisher {
  private readonly emitter: Emitter | null;

  constructor(private readonly redis: Redis) {
    this.emitter = redis.isCluster ? null : new Emitter(redis, { key: SOCKET_ADAPTER_KEY });
  }

  emit<E extends keyof UserEventPayloads>(userId: string, event: E, payload: UserEventPayloads[E]): void {
    if (this.emitter) {
      this.emitter.to(roomForUser(userId)).emit(event, payload);
      return;
    }
    const message: UserEventMessage = { room: roomForUser(userId), event, data: payload };
    // Fire and forget, as the emitter is: a status the socket misses is read again with the document.
    publishFeed(this.redis, feedChannel(true, USER_EVENTS_CHANNEL, userId), JSON.stringify(message)).catch(() => undefined);
  }

  /**
   * Tells every socket of the user, on every server node, why (`auth_expired`), then disconnects
   * them: at once, not at the gateway's next re-check (an erasure locks the person out from its
   * request on). A socket a lost message misses is still cut by that re-check.
   */
  cutSockets(userId: string, reason: AuthExpired = ACCOUNT_INACTIVE): void {
    this.cutRoom(userId, roomForUser(userId), reason);
  }

  /** The same for the sockets of one browser sign-in of the user (signed out, or its refresh token reused). */
  cutSignIn(userId: string, signInId: string): void {
    this.cutRoom(userId, roomForSignIn(signInId), SIGNED_OUT);
  }

  private cutRoom(userId: string, room: string, reason: AuthExpired): void {
    if (this.emitter) {
      this.emitter.to(room).emit("auth_expired", reason);
      this.emitter.in(room).disconnectSockets(true);
      return;
    }
    const message: UserEventMessage = { room, event: "auth_expired", data: reason, disconnect: true };
    publishFeed(this.redis, feedChannel(true, USER_EVENTS_CHANNEL, userId), JSON.stringify(message)).catch(() => undefined);
  }
}
