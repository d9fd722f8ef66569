/**
 * The cancel signal of a chat turn, across processes. The server that receives the cancel sets
 * `skillnet:turn:<id>:cancel` (tagged on a cluster); whichever worker runs a stage of that turn sees the flag at the
 * start of the stage and, while it streams, through a `CancelWatch` whose AbortSignal fires
 * within CANCEL_POLL_MS.
 *
 * Why a polled key and not pub/sub: one MGET per worker process per tick covers every turn it
 * is running, however many; there is no subscriber connection to open, close or re-subscribe,
 * and a cancel set while Redis was reconnecting is still seen (a published message would be
 * lost). The flag outlives every retry of the turn, so a stage that starts late still stops.
 */
import type { Redis } from "ioredis";
import { groupByTag, keyTagOf, ownedKey } from "./slots";

/** How often a worker looks at the flags of the turns it is streaming. */
export const CANCEL_POLL_MS = 200;
/** Longer than any turn can wait in a queue or retry. */
const CANCEL_FLAG_TTL_SECONDS = 24 * 3600;

/** On a cluster it carries the turn's tag, so the flags of one poll are read with one MGET per tag. */
const flagKey = (redis: Redis, turnId: string): string => ownedKey(redis.isCluster, turnId, `turn:${turnId}:cancel`);

/** Marks the turn cancelled; the stage running it (or the next to start) stops. */
export async function requestTurnCancel(redis: Redis, turnId: string): Promise<void> {
  await redis.set(flagKey(redis, turnId), String(Date.now()), "EX", CANCEL_FLAG_TTL_SECONDS);
}

export async function isTurnCancelled(redis: Redis, turnId: string): Promise<boolean> {
  return (await redis.exists(flagKey(redis, turnId))) === 1;
}

/** One turn being watched: `signal` aborts (and `cancelled` turns true) once the flag is seen. */
export interface CancelWatch {
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
  /** Reads the flag now (at a stage boundary, before a model call); aborts `signal` if it is set. */
  check(): Promise<boolean>;
  /** Stops watching; call when the stage is done with the model. */
  stop(): void;
}

/** Watches the cancel flags of the turns one process is running, with one MGET per tick. */
export class TurnCancelWatcher {
  private readonly watched = new Map<string, Set<AbortController>>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly redis: Redis,
    private readonly pollMs = CANCEL_POLL_MS,
  ) {}

  watch(turnId: string): CancelWatch {
    const controller = new AbortController();
    const controllers = this.watched.get(turnId) ?? new Set();
    controllers.add(controller);
    this.watched.set(turnId, controllers);
    this.timer ??= setInterval(() => void this.poll(), this.pollMs).unref();
    return {
      signal: controller.signal,
      get cancelled() {
        return controller.signal.aborted;
      },
      check: async () => {
        if (!controller.signal.aborted && (await isTurnCancelled(this.redis, turnId))) controller.abort();
        return controller.signal.aborted;
      },
      stop: () => this.forget(turnId, controller),
    };
  }

  private forget(turnId: string, controller: AbortController): void {
    const controllers = this.watched.get(turnId);
    controllers?.delete(controller);
    if (controllers?.size === 0) this.watched.delete(turnId);
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async poll(): Promise<void> {
    // A slow Redis must not stack up ticks; the next one asks again.
    if (this.polling || this.watched.size === 0) return;
    this.polling = true;
    try {
      // MGET reads one slot: on a cluster, one per tag of the watched turns (on a single Redis, one).
      const groups = this.redis.isCluster ? [...groupByTag([...this.watched.keys()], keyTagOf).values()] : [[...this.watched.keys()]];
      await Promise.all(
        groups.map(async (turnIds) => {
          const flags = await this.redis.mget(...turnIds.map((turnId) => flagKey(this.redis, turnId)));
          turnIds.forEach((turnId, i) => {
            if (flags[i] === null) return;
            for (const controller of this.watched.get(turnId) ?? []) controller.abort();
          });
        }),
      );
    } catch {
      // Redis unreachable: the turn streams on; the flag is read again on the next tick.
    } finally {
      this.polling = false;
    }
  }
}

const watchers = new WeakMap<Redis, TurnCancelWatcher>();

/** The process's watcher for this connection (one per Redis client, made on first use). */
export function cancelWatcherFor(redis: Redis): TurnCancelWatcher {
  let watcher = watchers.get(redis);
  if (!watcher) {
    watcher = new TurnCancelWatcher(redis);
    watchers.set(redis, watcher);
  }
  return watcher;
}
