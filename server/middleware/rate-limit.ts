/**
 * Sliding-window rate limits kept in Redis, so a limit holds across server nodes. A request
 * may be counted against several windows at once (the user's and the organisation's): all are
 * checked and admitted in one atomic script, so a refusal by one window leaves no count in the
 * others. Checked before anything is stored or enqueued: a refused request leaves no trace.
 */
import type { Redis } from "ioredis";
import type { Middleware } from "koa";
import { redisKey } from "../../queues/keys";
import { Refusal } from "../../lib/refusal";

// One sorted set of request timestamps per window. Trims every window first; if any is full,
// returns its position and the wait; otherwise records the request in all of them.
const SLIDING_WINDOWS = `
local now, member = tonumber(ARGV[1]), ARGV[2]
for i, key in ipairs(KEYS) do
  local window, limit = tonumber(ARGV[1 + i * 2]), tonumber(ARGV[2 + i * 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return {0, tonumber(oldest[2]) + window - now, i}
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, tonumber(ARGV[1 + i * 2]))
end
return {1, 0, 0}
`;

export interface RateLimitRule {
  /** `tutor`, `admin`, `upload`, … — each bucket is counted separately. */
  bucket: string;
  limit: number;
  windowMs: number;
}

/**
 * Whose window a check counts against; `user` and `organisation` are named in the refusal so the
 * caller knows whose limit it was. `caller` is any other key (a client IP, say).
 */
export type RateLimitScope = "user" | "organisation" | "caller";

export interface RateLimitCheck {
  scope: RateLimitScope;
  /** The user id, organisation id or other caller key. */
  id: string;
  rule: RateLimitRule;
}

/** The two windows of one costly operation: per user, and per organisation (shared by all its users). */
export interface PrincipalLimits {
  perUser: number;
  perOrganisation: number;
}

export class RateLimiter {
  private counter = 0;

  constructor(private readonly redis: Redis) {}

  /** Throws 429 RATE_LIMITED with `retry_after` (seconds) when `subjectId` is over the rule's limit. */
  async consume(subjectId: string, rule: RateLimitRule, scope: RateLimitScope = "caller"): Promise<void> {
    await this.consumeAll([{ scope, id: subjectId, rule }]);
  }

  /** Counts one `bucket` request against the caller's own window and their organisation's. */
  async consumeFor(principal: { userId: string; orgId: string }, bucket: string, limits: PrincipalLimits, windowMs = 60_000): Promise<void> {
    await this.consumeAll([
      { scope: "user", id: principal.userId, rule: { bucket, limit: limits.perUser, windowMs } },
      { scope: "organisation", id: principal.orgId, rule: { bucket, limit: limits.perOrganisation, windowMs } },
    ]);
  }

  /** Admits the request in every window or in none; throws 429 naming the window that was full. */
  async consumeAll(checks: RateLimitCheck[]): Promise<void> {
    const now = Date.now();
    const member = `${now}-${process.pid}-${++this.counter}`;
    // One script, so one slot on a cluster: every window of the call carries the tag of its
    // organisation's (else its first) check. A user's window for a bucket is always counted
    // together with the organisation's, so it always gets the same tag.
    const owner = (checks.find((check) => check.scope === "organisation") ?? checks[0])?.id ?? "";
    const keys = checks.map((check) => keyOf(this.redis.isCluster, owner, check));
    const args = checks.flatMap((check) => [check.rule.windowMs, check.rule.limit]);
    const [allowed, retryMs, refusedBy] = (await this.redis.eval(SLIDING_WINDOWS, keys.length, ...keys, now, member, ...args)) as [number, number, number];
    if (allowed === 1) return;
    throw rateLimited(checks[refusedBy - 1]!, retryMs);
  }
}

function keyOf(cluster: boolean, owner: string, check: RateLimitCheck): string {
  const bucket = check.rule.bucket;
  if (check.scope === "user") return redisKey("rateLimitOfPerson", cluster, { bucket, userId: check.id }, owner);
  if (check.scope === "organisation") return redisKey("rateLimitOfOrganisation", cluster, { bucket, orgId: check.id }, owner);
  return redisKey("rateLimitOfCaller", cluster, { bucket, caller: check.id }, owner);
}

/** The 429 every limiter raises: which limit (yours or your organisation's), and when to retry. */
export function rateLimited(check: Pick<RateLimitCheck, "scope" | "rule">, retryMs: number): Refusal {
  const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
  const per = check.rule.windowMs === 60_000 ? "minute" : `${Math.round(check.rule.windowMs / 1000)} s`;
  const whose = { user: "your limit is", organisation: "your organisation's limit is", caller: "at most" }[check.scope];
  return new Refusal(
    "rate_limited",
    "RATE_LIMITED",
    `Too many ${check.rule.bucket} requests: ${whose} ${check.rule.limit} per ${per}. Try again in ${retryAfter} s.`,
    {
      retry_after: retryAfter,
      ...(check.scope === "caller" ? {} : { limit: check.scope }),
    },
  );
}

/** Middleware counting each request against `rule` per client IP, before anything is read or stored (public endpoints). */
export function perClientIp(redis: Redis, rule: RateLimitRule): Middleware {
  const limiter = new RateLimiter(redis);
  return async (ctx, next) => {
    await limiter.consume(ctx.ip, rule);
    await next();
  };
}
