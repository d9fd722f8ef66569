/**
 * Events for a user's own room (`user:<id>`): document status now, admin actions later.
 * Workers publish through the Socket.IO Redis emitter, so whichever server node holds the
 * user's socket delivers them.
 */
import { Emitter } from "@socket.io/redis-emitter";
import type { Redis } from "ioredis";
import type { DocumentStatus } from "../../lib/document-status";
import { roomForUser } from "./contract";

/** The adapter key the gateway uses; emitter and adapter must agree on it. */
export const SOCKET_ADAPTER_KEY = "skillnet-socket.io";

export interface UserEventPayloads {
  /** `error` is the readable reason of a FAILED, `error_code` its stable code (EXTRACTION_TIMEOUT, …). */
  document_status: { documentId: string; status: DocumentStatus; progress?: { done: number; total: number }; error?: string; error_code?: string };
}

export class UserEventPublisher {
  private readonly emitter: Emitter;

  constructor(redis: Redis) {
    this.emitter = new Emitter(redis, { key: SOCKET_ADAPTER_KEY });
  }

  emit<E extends keyof UserEventPayloads>(userId: string, event: E, payload: UserEventPayloads[E]): void {
    this.emitter.to(roomForUser(userId)).emit(event, payload);
  }
}
