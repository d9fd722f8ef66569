/**
 * Redis connections. BullMQ's guidance: workers (blocking commands) need
 * `maxRetriesPerRequest: null`; producers should fail fast so an HTTP request never hangs
 * on a dead Redis.
 */
import { Redis, type RedisOptions } from "ioredis";
import { componentLogger } from "../lib/logger";

export type RedisRole = "worker" | "producer" | "subscriber";

export function redisOptions(url: string, role: RedisRole): RedisOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    tls: parsed.protocol === "rediss:" ? {} : undefined,
    // Producers serve HTTP requests: give up after one reconnect attempt or 5 s, never hang.
    maxRetriesPerRequest: role === "producer" ? 1 : null,
    enableOfflineQueue: true,
    ...(role === "producer" ? { commandTimeout: 5_000 } : {}),
    connectTimeout: 5_000,
    lazyConnect: false,
  };
}

export function createRedis(url: string, role: RedisRole): Redis {
  const redis = new Redis(redisOptions(url, role));
  // ioredis reconnects by itself; without a listener every failed attempt is an "unhandled error".
  let lastLogged = 0;
  redis.on("error", (error: Error) => {
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    componentLogger("redis").warn({ err: error, role }, "redis connection error; reconnecting");
  });
  return redis;
}

/** The oldest Redis the event logs work with: they let Redis number entries (`XADD … 0-*`, 7.0). */
export const MIN_REDIS_VERSION = "7.0.0";

/** The `redis_version` of an `INFO server` reply, or null when it names none. */
export function redisVersionOf(info: string): string | null {
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? null;
}

/** True when dotted version `a` is at least `b` (missing parts count as 0). */
export function versionAtLeast(a: string, b: string): boolean {
  const parts = (v: string) => v.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  }
  return true;
}

/** Refuses to start against a Redis too old for the event logs, naming both versions (a clear error now, not every turn failing later). */
export async function requireRedisVersion(redis: Redis): Promise<void> {
  const version = redisVersionOf(await redis.info("server"));
  if (version && !versionAtLeast(version, MIN_REDIS_VERSION)) {
    throw new Error(`REDIS_URL points at Redis ${version}; skillnet-chat needs Redis ${MIN_REDIS_VERSION} or later (turn event logs use XADD with "0-*" ids).`);
  }
}
