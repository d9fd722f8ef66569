/**
 * Per-user sliding-window rate limits kept in Redis, so the limit holds across server nodes.
 * Checked before anything is stored or enqueued: a refused request leaves no trace.
 */
import type { Redis } from "ioredis";
import { HttpError } from "../errors";

// Sorted set of request timestamps; trims the window, counts, and admits atomically.
const SLIDING_WINDOW = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, window)
return {1, 0}
`;

export interface RateLimitRule {
  /** `tutor`, `admin`, … — each bucket is counted separately. */
  bucket: string;
  limit: number;
  windowMs: number;
}

export class RateLimiter {
  private counter = 0;

  constructor(private readonly redis: Redis) {}

  /** Throws 429 RATE_LIMITED with `retry_after` (seconds) when the user is over the limit. */
  async consume(userId: string, rule: RateLimitRule): Promise<void> {
    const now = Date.now();
    const member = `${now}-${process.pid}-${++this.counter}`;
    const [allowed, retryMs] = (await this.redis.eval(SLIDING_WINDOW, 1, `skillnet:ratelimit:${rule.bucket}:${userId}`, now, rule.windowMs, rule.limit, member)) as [number, number];
    if (allowed === 1) return;
    const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
    throw new HttpError(429, "RATE_LIMITED", `Too many ${rule.bucket} requests: at most ${rule.limit} per minute. Try again in ${retryAfter} s.`, {
      retry_after: retryAfter,
    });
  }
}
