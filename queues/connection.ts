/**
 * Redis connections. BullMQ's guidance: workers (blocking commands) need
 * `maxRetriesPerRequest: null`; producers should fail fast so an HTTP request never hangs
 * on a dead Redis.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import type { Logger } from "pino";
import { type Config, requireSetting } from "../lib/config";

export type RedisRole = "worker" | "producer" | "subscriber";

/** Sentinels that name the master, and the name they know it by. */
export interface SentinelTarget {
  sentinels: Array<{ host: string; port: number }>;
  name: string;
  password?: string;
}

/**
 * Where every Redis connection of a process goes: one server (`url`), or whichever server the
 * sentinels call master (then `url`, when set, only carries the master's credentials, database
 * and TLS). Every connection the product makes is built from one of these by `createRedis`.
 */
export interface RedisTarget {
  url?: string;
  sentinel?: SentinelTarget;
  /** Some nodes of a Redis Cluster (the client finds the rest); `url`, when set, carries credentials and TLS. */
  cluster?: Array<{ host: string; port: number }>;
}

/** `host:port,…` → addresses. */
function addressList(list: string): Array<{ host: string; port: number }> {
  return list.split(",").map((entry) => {
    const at = entry.lastIndexOf(":");
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  });
}

/** The target the configuration names: REDIS_CLUSTER_NODES or REDIS_SENTINELS when set, else REDIS_URL (required). */
export function redisTargetOf(config: Pick<Config, "redis">): RedisTarget {
  if (config.redis.REDIS_CLUSTER_NODES) return { url: config.redis.REDIS_URL, cluster: addressList(config.redis.REDIS_CLUSTER_NODES) };
  if (!config.redis.REDIS_SENTINELS) return { url: requireSetting(config.redis, "REDIS_URL") };
  const sentinels = addressList(config.redis.REDIS_SENTINELS);
  return { url: config.redis.REDIS_URL, sentinel: { sentinels, name: config.redis.REDIS_SENTINEL_NAME, password: config.redis.REDIS_SENTINEL_PASSWORD } };
}

/**
 * How long a turn event waits for a replica before clients see it (0 = no wait). Only behind
 * Sentinel or on a cluster: there a failover promotes a replica, and an event the old master
 * alone held would be numbered again by the new one.
 */
export function replicaWaitMs(config: Pick<Config, "redis">): number {
  if (config.redis.REDIS_CLUSTER_NODES) return config.redis.REDIS_CLUSTER_WAIT_MS;
  return config.redis.REDIS_SENTINELS ? config.redis.REDIS_SENTINEL_WAIT_MS : 0;
}

/** Between two rounds over every sentinel: back off to 2 s, and never give up (a null would end the client for good). */
const SENTINEL_RETRY = (attempt: number): number => Math.min(100 * attempt, 2_000);

/** The address part: one server from the URL, or the sentinels with the URL's credentials for the master. */
function addressOptions(target: RedisTarget): RedisOptions {
  const parsed = target.url ? new URL(target.url) : undefined;
  const tls = parsed?.protocol === "rediss:";
  const credentials: RedisOptions = {
    username: parsed?.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed?.password ? decodeURIComponent(parsed.password) : undefined,
    db: parsed && parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    tls: tls ? {} : undefined,
  };
  if (!target.sentinel) return { host: parsed?.hostname, port: Number(parsed?.port || 6379), ...credentials };
  return {
    ...credentials,
    sentinels: target.sentinel.sentinels,
    name: target.sentinel.name,
    sentinelPassword: target.sentinel.password,
    enableTLSForSentinelMode: tls,
    sentinelRetryStrategy: SENTINEL_RETRY,
    // Sentinels announce `+switch-master`: connections leave a demoted master at once instead of at their next error.
    failoverDetector: true,
    // A master that came back as a replica answers writes with READONLY: ask the sentinels again.
    reconnectOnError: (error) => error.message.startsWith("READONLY"),
  };
}

export function redisOptions(target: RedisTarget, role: RedisRole): RedisOptions {
  return {
    ...addressOptions(target),
    // Producers serve HTTP requests: give up after one reconnect attempt or 5 s, never hang.
    maxRetriesPerRequest: role === "producer" ? 1 : null,
    enableOfflineQueue: true,
    ...(role === "producer" ? { commandTimeout: 5_000 } : {}),
    connectTimeout: 5_000,
    lazyConnect: false,
  };
}

/**
 * A cluster client with the same per-role behaviour. Failovers show up as refused connections,
 * `CLUSTERDOWN` and `MOVED` for a few seconds: commands wait for the new topology (retried every
 * 200 ms, up to `maxRedirections` times, ≈ 10 s) instead of failing at the first error.
 * Subscribers get sharded subscribers (SSUBSCRIBE goes to the node owning the channel's slot).
 */
function clusterOptions(target: RedisTarget, role: RedisRole): ClusterOptions {
  const { host: _host, port: _port, db: _db, ...node } = redisOptions({ url: target.url }, role);
  return {
    redisOptions: node,
    enableOfflineQueue: true,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    maxRedirections: 50,
    slotsRefreshTimeout: 2_000,
    clusterRetryStrategy: (attempt: number) => Math.min(100 * attempt, 2_000),
    shardedSubscribers: role === "subscriber",
    // A TLS cluster announces node addresses the certificate names; keep the hostnames as given.
    ...(node.tls ? { dnsLookup: (address: string, done: (error: null, address: string) => void) => done(null, address) } : {}),
  };
}

/**
 * One connection (or, for a cluster, one cluster client) of the given role. A `Cluster` answers
 * every command a `Redis` does and BullMQ takes either; it is typed as `Redis` so the modules
 * that hold a connection need no union. Code that must tell them apart reads `isCluster`.
 * `log` is the owning process's logger: connection errors are written to it as `component: "redis"`.
 */
export function createRedis(target: RedisTarget, role: RedisRole, log: Logger): Redis {
  const redis = target.cluster ? (new Cluster(target.cluster, clusterOptions(target, role)) as unknown as Redis) : new Redis(redisOptions(target, role));
  // ioredis reconnects by itself; without a listener every failed attempt is an "unhandled error".
  let lastLogged = 0;
  const redisLog = log.child({ component: "redis" });
  redis.on("error", (error: Error) => {
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    redisLog.warn({ err: error, role }, "redis connection error; reconnecting");
  });
  if (target.sentinel) reviveUnaskedEnd(redis, redisLog.child({ role }));
  return redis;
}

/** Before a connection that ended on its own connects again: long enough that no failure loops hot. */
const REVIVE_DELAY_MS = 200;

/**
 * ioredis 6 can end a Sentinel connection for good. When the master dies, the connection's
 * failover detector (subscribed to the sentinels' `+switch-master`) outlives it; if the
 * announcement arrives while the reconnect is still asking the sentinels for the master, the
 * detector stops the connector, the reconnect fails with "Connection is closed.", every command
 * waiting for it is refused and the status becomes `end`: no further attempt. A worker's event
 * log, its queues and a server's feed then stay dead, and a turn's end reaches no one (a whole
 * test run met it: test/reliability/redis-sentinel-failover.test.ts). So, on a connection of ours:
 * - the detector's stop is ignored while the connection is not up (it is asking the sentinels
 *   for the master already, which is all the stop would make it do);
 * - should an end come that neither `quit` nor `disconnect` asked for, it connects again;
 * - an end we asked for stops the failover detector (after `quit` ioredis leaves its sentinel
 *   connections retrying for good);
 * - and its duplicates (BullMQ's blocking connections) are treated the same.
 */
function reviveUnaskedEnd(redis: Redis, log: Logger): void {
  let closedByUs = false;
  const quit = redis.quit.bind(redis);
  const disconnect = redis.disconnect.bind(redis);
  redis.quit = ((...args: Parameters<Redis["quit"]>) => {
    closedByUs = true;
    return quit(...args);
  }) as Redis["quit"];
  redis.disconnect = (reconnect?: boolean) => {
    if (!reconnect) closedByUs = true;
    disconnect(reconnect);
  };
  const connector = (redis as unknown as { connector: { disconnect(): void; failoverDetector?: { cleanup(): void } } }).connector;
  const stopConnector = connector.disconnect.bind(connector);
  connector.disconnect = () => {
    if (!closedByUs && (redis.status === "connecting" || redis.status === "reconnecting")) return;
    stopConnector();
  };
  // BullMQ makes its blocking connections with `duplicate()`: they get the same care.
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = ((...args: Parameters<Redis["duplicate"]>) => {
    const copy = duplicate(...args);
    reviveUnaskedEnd(copy, log);
    return copy;
  }) as Redis["duplicate"];
  redis.on("end", () => {
    // `quit` never stops the connector, so its failover detector would go on asking the sentinels for good.
    if (closedByUs) return connector.failoverDetector?.cleanup();
    log.warn("redis connection ended without being closed; connecting again");
    setTimeout(() => {
      if (redis.status === "end" && !closedByUs) redis.connect().catch(() => undefined);
    }, REVIVE_DELAY_MS).unref();
  });
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
    throw new Error(
      `The Redis server (REDIS_URL or the master REDIS_SENTINELS names) is Redis ${version}; skillnet-chat needs Redis ${MIN_REDIS_VERSION} or later (turn event logs use XADD with "0-*" ids).`,
    );
  }
}
