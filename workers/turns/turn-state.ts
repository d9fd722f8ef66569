/**
 * A chat turn's state in Redis, as the workers see it (tutor and admin assistant alike): the
 * cancel flag and the process's watcher of it, whether an attempt is a redelivery, the tutor's
 * checkpoints, and the one clean-up once the turn has ended. The key layout is in
 * queues/turn-keys.ts, which the server (the side that raises the cancel flag) shares.
 *
 * Checkpoints: each stage of a tutor turn keeps its result under the turn's key tag — the intent,
 * then the sources, then the finished answer until it is stored — so a redelivered attempt (a
 * crashed or stopping worker, a retry) starts at the first stage whose result is not kept: it
 * neither asks the model again nor shows a stage twice. Sources are lesson text, company
 * documents and a learner's progress, which is why they are kept here and never as a job's
 * return value (Bull Board shows those for a day).
 *
 * The cancel flag, and why a polled key rather than pub/sub: one MGET per worker process per
 * tick covers every turn it is running, however many; there is no subscriber connection to open,
 * close or re-subscribe, and a cancel set while Redis was reconnecting is still seen (a published
 * message would be lost). A `CancelWatch`'s AbortSignal fires within CANCEL_POLL_MS of the flag.
 */
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { groupByTag, keyTagOf } from "../../queues/slots";
import { CHECKPOINT_TTL_SECONDS } from "../../queues/keys";
import { TURN_CHECKPOINTS, turnCancelKey, turnCheckpointKey, type TurnCheckpoint } from "../../queues/turn-keys";

/** How often a worker looks at the flags of the turns it is streaming. */
export const CANCEL_POLL_MS = 200;

/**
 * Whether this attempt runs a turn that an earlier attempt already started, so the client may
 * hold partial text to drop. `attemptsStarted` also counts runs cut short by a dead worker
 * (stalled jobs), which `attemptsMade` does not.
 */
export function isRedelivery(job: Pick<Job, "attemptsMade" | "attemptsStarted">): boolean {
  return job.attemptsMade > 0 || job.attemptsStarted > 1;
}

/** Keeps one stage's result (JSON) for a redelivered attempt. */
export async function keepCheckpoint(redis: Redis, turnId: string, checkpoint: TurnCheckpoint, value: unknown): Promise<void> {
  await redis.set(turnCheckpointKey(redis.isCluster, turnId, checkpoint), JSON.stringify(value), "EX", CHECKPOINT_TTL_SECONDS);
}

/** Every kept checkpoint of the turn, parsed JSON (what the stage kept; the caller checks its shape), in one MGET: the keys share a slot. */
export async function keptCheckpoints(redis: Redis, turnId: string): Promise<Partial<Record<TurnCheckpoint, unknown>>> {
  const values = await redis.mget(...TURN_CHECKPOINTS.map((checkpoint) => turnCheckpointKey(redis.isCluster, turnId, checkpoint)));
  const kept: Partial<Record<TurnCheckpoint, unknown>> = {};
  TURN_CHECKPOINTS.forEach((checkpoint, i) => {
    const value = values[i];
    if (value) kept[checkpoint] = JSON.parse(value);
  });
  return kept;
}

/**
 * Drops what the turn kept, once it has ended — answered, cancelled or failed for good. One
 * command: the keys share a slot. The cancel flag stays until it expires, so a late retry stops too.
 */
export async function clearTurnState(redis: Redis, turnId: string): Promise<void> {
  await redis.del(...TURN_CHECKPOINTS.map((checkpoint) => turnCheckpointKey(redis.isCluster, turnId, checkpoint)));
}

export async function isTurnCancelled(redis: Redis, turnId: string): Promise<boolean> {
  return (await redis.exists(turnCancelKey(redis.isCluster, turnId))) === 1;
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
          const flags = await this.redis.mget(...turnIds.map((turnId) => turnCancelKey(this.redis.isCluster, turnId)));
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

/** Watches the turn's cancel flag with the process's watcher for this connection (one per Redis client, made on first use). */
export function watchCancel(redis: Redis, turnId: string): CancelWatch {
  let watcher = watchers.get(redis);
  if (!watcher) {
    watcher = new TurnCancelWatcher(redis);
    watchers.set(redis, watcher);
  }
  return watcher.watch(turnId);
}
