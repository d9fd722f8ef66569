/**
 * A Redis Cluster for tests and the bench, from the distribution's own redis-server: six nodes
 * made into three primaries with one replica each by `redis-cli --cluster create`. Nodes time
 * out after 2 s and a replica may take over however long it was cut off
 * (`cluster-replica-validity-factor 0`), so a killed primary is replaced in about 4 s. Every
 * node runs under the watchdog (it stops when this process dies) on a free loopback port, all
 * in one temp folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { pollUntil } from "./poll";

const NODE_TIMEOUT_MS = 2_000;

export interface ClusterDeployment {
  /** `host:port,…` of every node, the value of REDIS_CLUSTER_NODES. */
  nodes: string;
  /** Ports of the nodes that are primaries now, each with the slot ranges it serves. */
  primaries(): Promise<Array<{ port: number; slots: Array<[number, number]> }>>;
  /** Port of the primary serving `key`'s slot now. */
  primaryFor(key: string): Promise<number>;
  /** Pid of the redis-server on `port` (its own, not the watchdog's). */
  pidOf(port: number): Promise<number>;
  /** `total_commands_processed` and `used_cpu_sys + used_cpu_user` of each live primary, by port. */
  stats(): Promise<Map<number, { commands: number; cpuSeconds: number }>>;
  /** Resolves once the cluster is `ok` on every live node and every replica is in sync with its primary. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function poll(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  return pollUntil(check, timeoutMs, `redis cluster: ${what}`);
}

/** One short-lived plain connection to one node. */
async function askNode<T>(port: number, run: (node: Redis) => Promise<T>): Promise<T> {
  const node = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  node.on("error", () => undefined);
  try {
    await node.connect();
    return await run(node);
  } finally {
    node.disconnect();
  }
}

function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(\\S+)`, "m").exec(info)?.[1];
}

export async function startClusterDeployment(): Promise<ClusterDeployment> {
  const dir = mkdtempSync(join(tmpdir(), "skillnet-cluster-"));
  const children: ManagedChild[] = [];
  const ports: number[] = [];
  const killed = new Set<number>();
  const stopAll = async (): Promise<void> => {
    for (const child of children.reverse()) await child.stop(3_000).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const port = await findFreePort();
      const dataDir = join(dir, `node-${i}`);
      const { child } = await startEmbeddedRedis({
        port,
        dataDir,
        persistent: false,
        exitWithParent: true,
        log: () => undefined,
        extraArgs: [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dataDir, "nodes.conf"),
          "--cluster-node-timeout",
          String(NODE_TIMEOUT_MS),
          "--cluster-replica-validity-factor",
          "0",
        ],
      });
      children.push(child);
      ports.push(port);
    }
    const created = spawnSync("redis-cli", ["--cluster", "create", ...ports.map((port) => `127.0.0.1:${port}`), "--cluster-replicas", "1", "--cluster-yes"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);

    const live = (): number[] => ports.filter((port) => !killed.has(port));
    const deployment: ClusterDeployment = {
      nodes: ports.map((port) => `127.0.0.1:${port}`).join(","),
      async primaries() {
        for (const port of live()) {
          const slots = await askNode(port, (node) => node.cluster("SLOTS")).catch(() => null);
          if (!slots) continue;
          const byPort = new Map<number, Array<[number, number]>>();
          for (const [from, to, [, primaryPort]] of slots as unknown as Array<[number, number, [string, number]]>) {
            byPort.set(primaryPort, [...(byPort.get(primaryPort) ?? []), [from, to]]);
          }
          return [...byPort].map(([port, ranges]) => ({ port, slots: ranges }));
        }
        throw new Error("redis cluster: no node answered CLUSTER SLOTS");
      },
      async primaryFor(key) {
        const slot = await askNode(live()[0]!, (node) => node.cluster("KEYSLOT", key));
        const primary = (await deployment.primaries()).find(({ slots }) => slots.some(([from, to]) => slot >= from && slot <= to));
        if (!primary) throw new Error(`redis cluster: no primary serves slot ${slot}`);
        return primary.port;
      },
      async pidOf(port) {
        const pid = Number(infoField(await askNode(port, (node) => node.info("server")), "process_id"));
        // Marked before the kill that follows: the helpers stop asking a node that is gone.
        killed.add(port);
        return pid;
      },
      async stats() {
        const stats = new Map<number, { commands: number; cpuSeconds: number }>();
        for (const { port } of await deployment.primaries()) {
          const info = await askNode(port, (node) => node.info());
          stats.set(port, {
            commands: Number(infoField(info, "total_commands_processed")),
            cpuSeconds: Number(infoField(info, "used_cpu_sys")) + Number(infoField(info, "used_cpu_user")),
          });
        }
        return stats;
      },
      async ready(timeoutMs = 30_000) {
        for (const port of live()) {
          await poll(async () => infoField(await askNode(port, (node) => node.cluster("INFO")), "cluster_state") === "ok", timeoutMs, `node ${port} is not ok`);
          await poll(
            async () => {
              const info = await askNode(port, (node) => node.info("replication"));
              return infoField(info, "role") === "master" || infoField(info, "master_link_status") === "up";
            },
            timeoutMs,
            `replica ${port} did not sync`,
          );
        }
      },
      stop: stopAll,
    };
    return deployment;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
