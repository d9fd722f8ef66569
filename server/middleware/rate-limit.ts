/**
 * Rate limits kept in Redis by rate-limiter-flexible (`RateLimiterRedis`: one counter per window,
 * which starts with its first request and lasts the rule's window), so a limit holds across server
 * nodes. A request may be counted against several windows at once (the user's and the
 * organisation's): they are counted in turn, and a refusal by one gives back what the request took
 * from every window, the refusing one too, so a refused request leaves no count anywhere.
 * Checked before anything is stored or enqueued: a refused request leaves no trace. With Redis
 * unreachable the check fails with Redis's error (no in-memory insurance): the request is refused
 * 503, as before the library (the socket limits keep their own node-local window for that).
 */
import type { Redis } from "ioredis";
import type { Middleware } from "koa";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { redisKey } from "../../queues/keys";
import { Refusal } from "../../lib/refusal";

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
  /** One library limiter per limit and window; the key names the bucket and whose window it is. */
  private readonly limiters = new Map<string, RateLimiterRedis>();

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

  /** Admits the request in every window or in none; throws 429 naming the first window that was full. */
  async consumeAll(checks: RateLimitCheck[]): Promise<void> {
    // On a cluster every window of the call carries the tag of its organisation's (else its first)
    // check, as the keys always have: a user's window for a bucket is counted with the organisation's.
    const owner = (checks.find((check) => check.scope === "organisation") ?? checks[0])?.id ?? "";
    const taken: Array<{ limiter: RateLimiterRedis; key: string }> = [];
    for (const check of checks) {
      const limiter = this.limiterFor(check.rule);
      const key = keyOf(this.redis.isCluster, owner, check);
      try {
        await limiter.consume(key);
        taken.push({ limiter, key });
      } catch (outcome) {
        const refused = outcome instanceof RateLimiterRes;
        // Give back what this request took (a refusing window counted it too); best effort, so a
        // refusal stays a 429 and Redis's own error stays what the caller sees.
        await Promise.allSettled([...taken, ...(refused ? [{ limiter, key }] : [])].map((window) => window.limiter.reward(window.key)));
        if (!refused) throw outcome;
        throw rateLimited(check, outcome.msBeforeNext);
      }
    }
  }

  private limiterFor(rule: RateLimitRule): RateLimiterRedis {
    const id = `${rule.limit}/${rule.windowMs}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      // No key prefix of the library's: the keys are ours, as built by keyOf.
      limiter = new RateLimiterRedis({ storeClient: this.redis, points: rule.limit, duration: rule.windowMs / 1000, keyPrefix: "" });
      this.limiters.set(id, limiter);
    }
    return limiter;
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
