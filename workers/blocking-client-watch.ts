/**
 * Keeps every Worker's blocking cluster client alive through a Redis Cluster failover.
 *
 * Why (issue 30, reproduced by test/reliability/redis-cluster-failover.test.ts in about one run
 * of two): when the primary a Worker blocks on (BZPOPMIN on its queue's marker) dies, BullMQ
 * 6.7's recovery disconnects and reconnects the Worker's own blocking `Cluster` while ioredis 6
 * is still refreshing its topology. The client can then be left in `disconnecting` for good —
 * a node connected and ready, the BZPOPMIN parked in the cluster's offline queue, nothing left
 * that would move the status on — and BullMQ's reconnect waits for a `ready` that never comes.
 * The Worker then fetches nothing: jobs pile up in its queue (an upload stayed PENDING for
 * minutes) while every other queue is served.
 *
 * A blocking cluster client that has not been `ready` for longer than any failover takes is
 * ended the way ioredis ends a cluster closed by hand (as worker-close.ts does at shutdown): the
 * parked commands are rejected and `end` is emitted, and BullMQ's own loop then connects it
 * afresh from the configured nodes. Only the blocking client is touched; it carries nothing but
 * the BZPOPMIN, so ending it loses no work.
 */
import type { Worker } from "bullmq";
import type { Logger } from "pino";
import { type BlockingClient, endClusterClient } from "./worker-close";

/** Longer than a failover (node timeout + election, ≈ 4–8 s on a loaded machine) plus BullMQ's own recovery. */
const STUCK_AFTER_MS = 15_000;
const CHECK_EVERY_MS = 2_000;

/** Starts watching; returns the function that stops it (before the workers close). */
export function watchBlockingClients(workers: readonly Worker[], log: Logger, stuckAfterMs = STUCK_AFTER_MS): () => void {
  const notReadySince = new Map<Worker, number>();
  const check = async (): Promise<void> => {
    for (const worker of workers) {
      if (!worker.isRunning() || worker.closing) continue;
      const client = (await worker.backend.blockingClient) as BlockingClient | undefined;
      if (client?.isCluster !== true || client.status === "ready" || client.status === "end") {
        notReadySince.delete(worker);
        continue;
      }
      const since = notReadySince.get(worker) ?? Date.now();
      notReadySince.set(worker, since);
      if (Date.now() - since < stuckAfterMs) continue;
      notReadySince.delete(worker);
      log.warn(
        { queue: worker.name, status: client.status, stuckMs: Date.now() - since },
        "worker's blocking cluster client stuck after a failover; reconnecting it",
      );
      endClusterClient(client);
    }
  };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    check()
      .catch((error: unknown) => log.warn({ err: error }, "blocking-client check failed"))
      .finally(() => {
        running = false;
      });
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
