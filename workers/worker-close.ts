/**
 * The last step of a worker's shutdown: waiting for BullMQ's `Worker.close()` once every job of
 * ours has finished or been handed back, without hanging on a Redis Cluster that lost a node.
 *
 * Why it can hang (BullMQ 6.7, ioredis 6): `close()` first runs `whenCurrentJobsFinished`, which
 * disconnects the Worker's own blocking client (`disconnectBlocking(true)`) and waits for that
 * client's `end` event before anything else. An ioredis `Cluster` whose node pool is already
 * empty (it lost the node it was blocking on, and BullMQ's cluster recovery or ioredis' retry
 * left it with no node connections, status `close`/`reconnecting`) never emits `end`:
 * `disconnect()` only resets the empty pool, and `end` comes from the pool's `drain`, which an
 * empty pool never fires. So a Worker whose queue copy sat on a primary that died shortly before
 * the shutdown never closes, and the process waits until it is killed.
 *
 * Such a client is in fact gone (no socket; after `disconnect()` no retry timer either). It is
 * finished the way ioredis finishes a cluster whose pool drained after a manual disconnect: its
 * close handler sets `end`, rejects the commands still queued (the Worker's BZPOPMIN: per
 * worker.js a failed wait while closing returns without fetching a job; read, not observed) and
 * emits `end`; BullMQ then carries on with its own close. Emitting only `end` is not enough: the queued BZPOPMIN then
 * ends by BullMQ's watchdog, whose reset of the blocking connection waits for a `ready` that
 * never comes (tried: the close still hung). Only that state is treated so; any other slow
 * close is waited for, up to a bound, then logged.
 */
import type { Worker } from "bullmq";
import type { Logger } from "pino";

/** Once no job of ours runs, BullMQ's close takes milliseconds (31 of 35 Workers in ≤ 140 ms after a failover). */
const WEDGE_CHECK_MS = 2_000;
/** Upper bound on the rest of a close (a last completion may wait out a failover, ≈ 10 s of redirect retries). */
const CLOSE_BOUND_MS = 20_000;

/** The part of an ioredis `Cluster` this reads; a plain `Redis` has no `nodes`. */
export interface BlockingClient {
  status: string;
  isCluster?: boolean;
  nodes?: () => unknown[];
  disconnect(): void;
  /** ioredis 6 Cluster's own (untyped) close handler: `end` when closed by hand, else a retry. */
  handleCloseEvent?: () => void;
}

/** A cluster client with no node left that will never reach `end` by itself (see the module comment). */
function isWedgedCluster(client: BlockingClient | undefined): client is BlockingClient {
  return client?.isCluster === true && client.status !== "end" && typeof client.nodes === "function" && client.nodes().length === 0;
}

function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Ends a cluster client the way ioredis ends one closed by hand: disconnect() marks it closed by
 * hand (so its close handler ends it rather than retrying), clears any retry timer and drops its
 * nodes; the close handler then rejects the queued commands and emits `end`.
 */
export function endClusterClient(client: BlockingClient): void {
  client.disconnect();
  client.handleCloseEvent?.();
}

/** Waits for `closing` (the Worker's `close()`, started earlier), freeing a wedged cluster client if it is one. */
export async function finishWorkerClose(worker: Worker, closing: Promise<void>, log: Logger): Promise<void> {
  const settled = closing.catch((error: unknown) => log.warn({ err: error, queue: worker.name }, "worker close failed"));
  if (await settledWithin(settled, WEDGE_CHECK_MS)) return;
  const client = (await worker.backend.blockingClient) as BlockingClient | undefined;
  if (isWedgedCluster(client)) {
    log.warn({ queue: worker.name, status: client.status }, "worker's blocking cluster client lost every node; ending it so the worker can close");
    endClusterClient(client);
  }
  if (!(await settledWithin(settled, CLOSE_BOUND_MS))) {
    log.error({ queue: worker.name, boundMs: WEDGE_CHECK_MS + CLOSE_BOUND_MS }, "worker did not close in time; going on with the shutdown");
  }
}
