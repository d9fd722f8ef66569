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
