/**
 * Samples the event loop's delay every LAG_WINDOW_MS and moves each adaptive worker's BullMQ
 * concurrency to its AdaptiveLimit (adaptive-concurrency.ts). BullMQ 6 reads `worker.concurrency`
 * before each fetch: lowered below what runs, the worker fetches nothing new and a finishing job
 * does not take the next one, while every running job carries on (the setter only stores the
 * number). At most the one fetch already waiting on Redis when the limit drops can still bring a
 * job. Raised, it takes effect when the worker next looks for work: at once if it has a free slot,
 * else when one of its jobs ends.
 *
 * The delay comes from `perf_hooks.monitorEventLoopDelay`, a libuv timer in native code: it samples
 * every 10 ms without running JavaScript, so it adds nothing to the loop it measures, and it keeps
 * every sample of the window (a loop blocked for the whole window still records its one long
 * delay). A JavaScript timer-drift sampler would add its own callbacks to that loop and see one
 * sample per tick it schedules.
 *
 * The window's mean, not its p99: measured on this 2-core machine (simulated streams burning
 * 0.3 ms a token at 50 tokens/s, 500 ms windows), the p99 of a process below saturation jumped
 * about (100 streams: 10.3 ms ± 12.0, one window in 17 past 25 ms; an idle process on a machine
 * busy with others: 3 windows in 14 past 25 ms) while the mean stayed put (4.5 ms ± 0.7; idle 0 of
 * 14), and once the loop saturates both rise together (150 streams: mean 18.6, p99 20.4; 250:
 * mean 70, p99 90). A lone pause (a collection, one slow parse) moves the p99 but is not cured by
 * taking fewer streams; a loop that is busy throughout is, and that is what the mean shows.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "pino";
import type { QueueName } from "../queues/names";
import type { AdaptiveLimit } from "./adaptive-concurrency";

/** One decision per window: long enough for ~50 samples, short enough to react within a second. */
export const LAG_WINDOW_MS = 500;
/** The sampler's period, subtracted from what it records (a calm loop records about this). */
const RESOLUTION_MS = 10;
/** Limit changes are logged at most this often (the latest limits, whatever happened between). */
const LOG_EVERY_MS = 5_000;

/** Event-loop delay, in ms past the sampler's own period, since the last `read()`. */
export interface LagSource {
  read(): number;
  stop(): void;
}

/** The mean of the event loop's delay over each window (why the mean: above). */
export function eventLoopLag(): LagSource {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  return {
    read() {
      const mean = histogram.count > 0 ? histogram.mean / 1e6 - RESOLUTION_MS : 0;
      histogram.reset();
      return Math.max(0, mean);
    },
    stop: () => histogram.disable(),
  };
}

/** A worker whose concurrency follows the load, and how many of its jobs run now. */
export interface FollowedWorker {
  queue: QueueName;
  worker: { concurrency: number };
  limit: AdaptiveLimit;
  running(): number;
}

/** Starts following; returns the stop (before the workers close). Nothing to follow, nothing runs. */
export function followLoad(
  followed: readonly FollowedWorker[],
  lag: LagSource,
  log: Logger,
  { windowMs = LAG_WINDOW_MS, budget = Number.POSITIVE_INFINITY }: { windowMs?: number; budget?: number } = {},
): () => void {
  if (followed.length === 0) {
    lag.stop();
    return () => undefined;
  }
  let loggedAt = Number.NEGATIVE_INFINITY;
  let unlogged = false;
  const timer = setInterval(() => {
    const now = performance.now();
    const lagMs = lag.read();
    const running = followed.map((entry) => entry.running());
    const total = running.reduce((sum, count) => sum + count, 0);
    for (const [i, entry] of followed.entries()) {
      // The streams of every followed worker share the process's budget: tutor turns may use what admin turns leave, and back.
      const limit = Math.max(1, Math.min(entry.limit.next(lagMs, running[i]!), budget - (total - running[i]!)));
      if (limit === entry.worker.concurrency) continue;
      entry.worker.concurrency = limit;
      unlogged = true;
    }
    if (unlogged && now - loggedAt >= LOG_EVERY_MS) {
      loggedAt = now;
      unlogged = false;
      log.info({ lagMs: Math.round(lagMs), queues: limitsOf(followed) }, "model-bound concurrency changed");
    }
  }, windowMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    lag.stop();
  };
}

/** Per queue, summed over its copies: the limit, the running jobs and the ceiling. */
export function limitsOf(followed: readonly FollowedWorker[]): Record<string, { limit: number; running: number; ceiling: number }> {
  const queues: Record<string, { limit: number; running: number; ceiling: number }> = {};
  for (const entry of followed) {
    const sum = (queues[entry.queue] ??= { limit: 0, running: 0, ceiling: 0 });
    sum.limit += entry.worker.concurrency;
    sum.running += entry.running();
    sum.ceiling += entry.limit.ceiling;
  }
  return queues;
}
