/**
 * The first thing every incoming socket event meets (a `socket.use` middleware): the socket's
 * own token bucket, in memory, before the payload is parsed or anything is read. A refused event
 * gets `{ok: false, error: {code: "RATE_LIMITED", message, retryAfter}}` on its ack, if it has
 * one; a socket that keeps sending after being refused (`floodDisconnectAfter` refusals within a
 * minute) is told `rate_limited {code: "EVENT_FLOOD"}` and disconnected.
 */
import type { Logger } from "pino";
import type { Socket } from "socket.io";
import type { RateLimitedEvent } from "../../queues/events/contract";
import { TokenBuckets } from "./token-bucket";

export interface SocketEventSettings {
  burst: number;
  perSecond: number;
  floodDisconnectAfter: number;
}

const FLOOD_WINDOW_MS = 60_000;

/** The refusal every limited socket call acks with. */
export function limitedAck(message: string, retryAfterMs: number): { ok: false; error: { code: "RATE_LIMITED"; message: string; retryAfter: number } } {
  return { ok: false, error: { code: "RATE_LIMITED", message, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) } };
}

export class SocketEventGuard {
  private readonly buckets: TokenBuckets;
  private readonly refusals = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly settings: SocketEventSettings,
    private readonly log: Logger,
  ) {
    this.buckets = new TokenBuckets(settings.burst, settings.perSecond);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the guard serves sockets whatever their event maps
  attach(socket: Socket<any, any, any, any>): void {
    socket.use((packet, next) => {
      const waitMs = this.buckets.take(socket.id);
      if (waitMs === 0) return next();
      const ack = packet.at(-1);
      const message = `Too many socket events: at most ${this.settings.burst} at once and ${this.settings.perSecond} per second on one connection.`;
      if (typeof ack === "function") ack(limitedAck(message, waitMs));
      if (this.refused(socket.id) > this.settings.floodDisconnectAfter) {
        const reason: RateLimitedEvent = {
          code: "EVENT_FLOOD",
          message: `Disconnected: more than ${this.settings.floodDisconnectAfter} events were refused within a minute.`,
        };
        this.log.warn({ socketId: socket.id, userId: socket.data?.principal?.userId, event: packet[0] }, "socket flooded events past its limit; disconnecting");
        socket.emit("rate_limited", reason);
        socket.disconnect(true);
      }
    });
    socket.once("disconnect", () => {
      this.buckets.delete(socket.id);
      this.refusals.delete(socket.id);
    });
  }

  /** Counts one refusal for the socket in its current minute; returns the count. */
  private refused(socketId: string, now = Date.now()): number {
    let window = this.refusals.get(socketId);
    if (!window || now - window.start >= FLOOD_WINDOW_MS) {
      window = { start: now, count: 0 };
      this.refusals.set(socketId, window);
    }
    window.count += 1;
    return window.count;
  }
}
