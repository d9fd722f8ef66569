/**
 * A Redis Sentinel deployment for failover tests, from the distribution's own binaries: a
 * master, one replica and three sentinels (quorum 2) that notice a dead master within a second,
 * so a failover takes a few seconds. Everything runs on free loopback ports in one temp folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import { findRedisServer, startEmbeddedRedis } from "../../launcher/embedded/redis";
import { pollUntil } from "./poll";

export const SENTINEL_MASTER_NAME = "skillnet";

/** How long the sentinels wait before calling a silent master down. */
const DOWN_AFTER_MS = 1_000;

export interface SentinelDeployment {
  /** `host:port,…`, the value of REDIS_SENTINELS. */
  sentinels: string;
  name: string;
  /** Port of the server that is master now (asks a sentinel). */
  masterPort(): Promise<number>;
  /** Pid of the redis-server listening on `port`. */
  pidOf(port: number): number;
  /** Resolves once every sentinel knows the replica and the other two sentinels, and the replica is in sync. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function poll(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  return pollUntil(check, timeoutMs, `sentinel deployment: ${what}`);
}

/** Debian's redis-sentinel (scripts/ensure-deps.sh --sentinel), else redis-server in sentinel mode: the same program. */
function sentinelCommand(config: string): [string, string[]] {
  const sentinel = spawnSync("sh", ["-c", "command -v redis-sentinel"], { encoding: "utf8" }).stdout.trim();
  if (sentinel) return [sentinel, [config]];
  const server = findRedisServer();
  if (!server) throw new Error("redis-server was not found (Debian/Ubuntu: apt-get install redis-server redis-sentinel)");
  return [server, [config, "--sentinel"]];
}

export async function startSentinelDeployment(): Promise<SentinelDeployment> {
  const dir = mkdtempSync(join(tmpdir(), "skillnet-sentinel-"));
  const children: ManagedChild[] = [];
  const byPort = new Map<number, ManagedChild>();
  const quiet = (): void => undefined;
  try {
    const [masterPort, replicaPort] = [await findFreePort(), await findFreePort()];
    const master = await startEmbeddedRedis({ port: masterPort, dataDir: join(dir, "master"), persistent: false, log: quiet });
    const replica = await startEmbeddedRedis({
      port: replicaPort,
      dataDir: join(dir, "replica"),
      persistent: false,
      log: quiet,
      extraArgs: ["--replicaof", "127.0.0.1", String(masterPort)],
    });
    for (const [port, server] of [
      [masterPort, master.child],
      [replicaPort, replica.child],
    ] as const) {
      children.push(server);
      byPort.set(port, server);
    }
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await findFreePort();
      const config = join(dir, `sentinel-${i}.conf`);
      // Sentinels rewrite their file as they learn the deployment: each gets its own.
      writeFileSync(
        config,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
          "",
        ].join("\n"),
      );
      const [command, args] = sentinelCommand(config);
      const { child } = await spawnUntilReady(command, args, { name: `redis-sentinel-${i}`, readyPattern: /\+monitor master/, timeoutMs: 20_000 });
      children.push(child);
      sentinelPorts.push(port);
    }
    const askSentinel = async <T>(run: (sentinel: Redis) => Promise<T>, port = sentinelPorts[0]!): Promise<T> => {
      const sentinel = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await sentinel.connect();
        return await run(sentinel);
      } finally {
        sentinel.disconnect();
      }
    };
    return {
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(","),
      name: SENTINEL_MASTER_NAME,
      async masterPort() {
        const [, port] = (await askSentinel((s) => s.call("SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER_NAME))) as [string, string];
        return Number(port);
      },
      pidOf(port) {
        const pid = byPort.get(port)?.process.pid;
        if (!pid) throw new Error(`no redis-server of this deployment listens on ${port}`);
        return pid;
      },
      async ready(timeoutMs = 30_000) {
        await poll(
          async () => {
            const info = await askSentinel((s) => s.info("replication"), replicaPort);
            return info.includes("master_link_status:up");
          },
          timeoutMs,
          "the replica did not sync",
        );
        for (const port of sentinelPorts) {
          await poll(
            () =>
              askSentinel(async (s) => {
                const replicas = (await s.call("SENTINEL", "replicas", SENTINEL_MASTER_NAME)) as string[][];
                const peers = (await s.call("SENTINEL", "sentinels", SENTINEL_MASTER_NAME)) as string[][];
                return replicas.length === 1 && peers.length === 2;
              }, port),
            timeoutMs,
            "the sentinels did not learn the replica and each other",
          );
        }
      },
      async stop() {
        for (const child of children.reverse()) await child.stop(3_000).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const child of children.reverse()) await child.stop(3_000).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
