/**
 * Redis connections. BullMQ's guidance: workers (blocking commands) need
 * `maxRetriesPerRequest: null`; producers should fail fast so an HTTP request never hangs
 * on a dead Redis.
 */
import { Redis, type RedisOptions } from "ioredis";

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
    maxRetriesPerRequest: role === "producer" ? 2 : null,
    enableOfflineQueue: role !== "producer",
    connectTimeout: 5_000,
    lazyConnect: false,
  };
}

export function createRedis(url: string, role: RedisRole): Redis {
  return new Redis(redisOptions(url, role));
}
