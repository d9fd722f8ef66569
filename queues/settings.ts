/**
 * Redis: where it is (one server, Sentinel or Cluster), how many queue copies, and how long a turn's events are kept.
 */
import { z } from "zod";
import { defineSection, optionalString } from "../lib/settings-section";

/** Behind Sentinel or on a cluster: how long a turn event waits for a replica (`WAIT 1`) before clients see it. */
const replicaWait = z.coerce.number().int().min(0).max(10_000).default(250);
const REPLICA_WAIT =
  "a turn event is shown to clients only once a replica holds it (`WAIT 1`), so a failover never takes back " +
  "text a user saw. This bounds that wait; past it the event goes out anyway. `0` = do not wait.";

export const redisSettings = defineSection({
  environment: {
    REDIS_URL: optionalString
      .pipe(z.url({ protocol: /^rediss?$/ }).optional())
      .describe(
        "`redis://` or `rediss://` URL: Redis 7.0+ with `maxmemory-policy noeviction`. Unset, `npm start` runs a local redis-server. " +
          "With `REDIS_SENTINELS` set, only its user, password, database number and scheme (`rediss` = TLS) are used, for the master.",
      ),
    REDIS_SENTINELS: optionalString
      .pipe(
        z
          .string()
          .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "use a list like 'sentinel-a:26379,sentinel-b:26379'")
          .optional(),
      )
      .describe(
        "`host:port,…` of Redis Sentinels. Set, every connection asks them for the master named `REDIS_SENTINEL_NAME` and follows it " +
          "through a failover; `npm start` runs no Redis of its own. TLS to the sentinels when `REDIS_URL` is `rediss://`.",
      ),
    REDIS_SENTINEL_NAME: z
      .string()
      .trim()
      .min(1)
      .default("mymaster")
      .describe("The master's name in the sentinels' configuration (`sentinel monitor <name> …`)."),
    REDIS_SENTINEL_PASSWORD: optionalString.describe("Password of the sentinels themselves (`requirepass` in sentinel.conf), when they have one."),
    REDIS_CLUSTER_NODES: optionalString
      .pipe(
        z
          .string()
          .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "use a list like 'redis-a:6379,redis-b:6379'")
          .optional(),
      )
      .describe(
        "`host:port,…` of some nodes of a Redis Cluster (7.0+, `maxmemory-policy noeviction` on every node). Set, every connection is a " +
          "cluster client that finds the rest of the nodes and follows failovers; `npm start` runs no Redis of its own. User, password and " +
          "TLS (`rediss`) come from `REDIS_URL` when it is set.",
      ),
    QUEUE_SHARDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe(
        "Copies of the tutor and admin queues, each under its own hash tag so a Redis Cluster spreads them over its shards; every turn of " +
          "a session goes to the same copy and workers serve them all. `1` on a single Redis keeps the queues as they were.",
      ),
    REDIS_MAXMEMORY: z
      .string()
      .trim()
      .regex(/^\d+(kb|mb|gb)?$/i, "use a size like 512mb or 2gb")
      .default("512mb")
      .describe(
        "`npm start` (embedded redis-server) and `docker-compose.yml`: Redis memory cap, with `noeviction` (writes fail past it, " + "nothing is evicted).",
      ),
  },
  why: {
    REDIS_URL: "Required outside `npm start`: where your Redis is (and its password and TLS).",
    REDIS_SENTINELS: "Your Redis is made highly available with Sentinel.",
    REDIS_SENTINEL_NAME: "Your sentinels monitor the master under another name than `mymaster`.",
    REDIS_SENTINEL_PASSWORD: "Your sentinels themselves require a password.",
    REDIS_CLUSTER_NODES: "Your Redis is a Cluster (managed Redis services often are).",
    QUEUE_SHARDS: "On a Redis Cluster, spread the tutor and admin queues over its shards (about one copy per shard).",
    REDIS_MAXMEMORY: "The embedded or compose Redis needs more (or less) memory than 512 MB on your machine.",
  },
  tunables: {
    // The replica wait was measured in test/reliability/redis-*-failover.test.ts (a failover loses
    // nothing a client saw); the event stream's size and life cover a turn's replay (docs/reliability.md).
    REDIS_SENTINEL_WAIT_MS: replicaWait.describe(`With \`REDIS_SENTINELS\`: ${REPLICA_WAIT}`),
    REDIS_CLUSTER_WAIT_MS: replicaWait.describe(`With \`REDIS_CLUSTER_NODES\`: ${REPLICA_WAIT}`),
    EVENT_STREAM_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(10)
      .default(3600)
      .describe("How long a turn's events stay in Redis for replay; also how long a session remembers its latest turn."),
    EVENT_STREAM_MAX_EVENTS: z.coerce.number().int().min(100).default(20_000).describe("Cap on the events kept per turn (approximate, via `XADD MAXLEN ~`)."),
  },
});
