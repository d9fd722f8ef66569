/**
 * Socket.IO connections: how often accounts are re-checked and how much one user or socket may send.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const socketSettings = defineSection({
  tunables: {
    // Chosen so a browser tab's normal traffic never reaches them while a flooding client does within
    // seconds (test/server/sockets/event-limits.test.ts, docs/security.md on socket limits).
    SOCKET_REAUTH_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(60_000)
      .describe(
        "How often each server node re-checks its sockets' accounts (one query per node) and token expiry; a deactivated or deleted " +
          "user's socket is disconnected with `auth_expired`.",
      ),
    RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(60)
      .describe("Socket.IO connections (handshakes) per user per minute; past it the handshake fails with `RATE_LIMITED`."),
    RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(120)
      .describe('Socket `join` calls per user per minute; past it the ack is `{ok: false, error: {code: "RATE_LIMITED"}}`.'),
    RATE_LIMIT_SOCKET_EVENTS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(300)
      .describe(
        "Socket `cancel` and `watch_action` calls (the events that read the database) per user per minute, across all of the user's sockets " +
          'and server nodes; past it the ack is `{ok: false, error: {code: "RATE_LIMITED"}}`.',
      ),
    SOCKET_EVENT_BURST: z.coerce
      .number()
      .int()
      .min(1)
      .default(40)
      .describe("Events one socket may send at once (its token bucket's size), of any kind, before any is parsed or read from the database."),
    SOCKET_EVENTS_PER_SECOND: z.coerce
      .number()
      .min(0.1)
      .default(5)
      .describe('How fast a socket\'s token bucket refills; an event past it acks `{ok: false, error: {code: "RATE_LIMITED", retryAfter}}`.'),
    SOCKET_FLOOD_DISCONNECT_AFTER: z.coerce
      .number()
      .int()
      .min(1)
      .default(100)
      .describe('Refused events within a minute after which a socket is sent `rate_limited {code: "EVENT_FLOOD"}` and disconnected.'),
    SOCKET_MAX_PER_USER: z.coerce
      .number()
      .int()
      .min(1)
      .default(20)
      .describe("Sockets one user may hold open at once, counted across server nodes in Redis; one more fails its handshake with `TOO_MANY_SOCKETS`."),
  },
});
