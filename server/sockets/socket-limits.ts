/**
 * Per-user limits on socket handshakes, `join` calls and the other events that read the
 * database (`cancel`, `watch_action`). A misbehaving client can send
 * thousands of joins a second, each of which would cost database reads; the limit has to be
 * cheaper than the work it protects. So each node first counts in memory (no I/O: a burst past
 * the limit is refused without touching Redis or Postgres), and only what that admits is
 * counted in the shared Redis window, which keeps the limit per user across nodes.
 */
import type { Logger } from "pino";
import { Refusal } from "../../lib/refusal";
import { type RateLimiter, rateLimited, type RateLimitRule } from "../middleware/rate-limit";
import { LocalWindow } from "./local-window";

export type SocketOperation = "connection" | "join" | "event";

export interface SocketLimitSettings {
  connectionsPerMinute: number;
  joinsPerMinute: number;
  eventsPerMinute: number;
}

const WINDOW_MS = 60_000;

export class SocketLimits {
  private readonly rules: Record<SocketOperation, RateLimitRule>;
  private readonly local: Record<SocketOperation, LocalWindow>;

  constructor(
    private readonly shared: RateLimiter,
    settings: SocketLimitSettings,
    private readonly log: Logger,
  ) {
    this.rules = {
      connection: { bucket: "socket-connection", limit: settings.connectionsPerMinute, windowMs: WINDOW_MS },
      join: { bucket: "socket-join", limit: settings.joinsPerMinute, windowMs: WINDOW_MS },
      event: { bucket: "socket-event", limit: settings.eventsPerMinute, windowMs: WINDOW_MS },
    };
    this.local = {
      connection: new LocalWindow(settings.connectionsPerMinute, WINDOW_MS),
      join: new LocalWindow(settings.joinsPerMinute, WINDOW_MS),
      event: new LocalWindow(settings.eventsPerMinute, WINDOW_MS),
    };
  }

  /** The 429-style refusal when the user is over the limit for this operation, else null. */
  async check(operation: SocketOperation, userId: string): Promise<Refusal | null> {
    const rule = this.rules[operation];
    const waitMs = this.local[operation].take(userId);
    if (waitMs > 0) return rateLimited({ scope: "user", rule }, waitMs);
    try {
      await this.shared.consume(userId, rule, "user");
      return null;
    } catch (error) {
      if (error instanceof Refusal && error.kind === "rate_limited") return error;
      // Redis unreachable: the node's own window still bounds the burst, so let it through.
      this.log.warn({ err: error, operation }, "shared socket rate limit unavailable; node-local limit only");
      return null;
    }
  }
}
