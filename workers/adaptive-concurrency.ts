/**
 * How many model-bound jobs (streaming answers) one worker process may run, following the load
 * instead of a hand-set number. A stream mostly waits on the model, so its cost is memory and the
 * CPU of its tokens, not a slot: the ceiling comes from the heap, and the event loop's delay says
 * when the CPU is full. While the loop lags past its target the limit drops below what is running,
 * so this worker takes no new job (other workers take them) and the running ones finish; once the
 * loop is calm again the limit climbs back. Running jobs are never cancelled.
 *
 * Pure: fed one window's lag and running count at a time (load-follower.ts does the sampling).
 */
import { getHeapStatistics } from "node:v8";

/** The most streams one process holds whatever its heap: past this, Redis and socket fan-out dominate and a second process is the cheaper fix. */
export const MAX_MODEL_STREAMS = 500;
/**
 * Heap one streaming answer may hold, conservatively: its prompt (sources and history, a few
 * thousand tokens, UTF-16 in memory), the request body, the answer as it grows, its event batches
 * and the HTTP stream's buffers come to well under 1 MiB; 4 MiB leaves room for the JSON copies
 * and the garbage a stream makes between collections.
 */
export const STREAM_HEAP_BYTES = 4 * 2 ** 20;
/** Share of the heap limit streams may take; the rest is the process's own (caches, tokenizer, other queues). */
export const STREAM_HEAP_SHARE = 0.5;

/** Under lag the limit drops to this share of what is running (rounded down, at least 1). */
export const BACK_OFF_TO = 0.7;
/** Once calm, the limit grows by this share of itself per window (at least 1): from 1 to 500 in 27 windows (under 14 s). */
export const GROWTH = 1 / 4;
/** "Calm" is a lag under this share of the target; between it and the target the limit holds, so it does not flap. */
export const CALM_SHARE = 0.5;

/** Streams the heap allows (`heapLimitBytes`, V8's by default) shared by `queues` model-bound queues: at least 1 each. */
export function modelStreamCeiling(queues: number, heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  const streams = Math.min(MAX_MODEL_STREAMS, Math.floor((heapLimitBytes * STREAM_HEAP_SHARE) / STREAM_HEAP_BYTES));
  return Math.max(1, Math.floor(streams / Math.max(1, queues)));
}

/** One worker's limit: starts at its ceiling, never leaves [1, ceiling]. */
export class AdaptiveLimit {
  private current: number;

  constructor(
    readonly ceiling: number,
    readonly lagTargetMs: number,
  ) {
    if (!Number.isInteger(ceiling) || ceiling < 1) throw new Error(`an adaptive limit needs a ceiling of at least 1, not ${ceiling}`);
    this.current = ceiling;
  }

  get limit(): number {
    return this.current;
  }

  /**
   * The limit after a window whose event-loop delay was `lagMs` while `running` jobs ran:
   * lagging, below what runs (multiplicative decrease, so no new job starts here); calm, up by
   * a quarter (at least one); in between, unchanged.
   */
  next(lagMs: number, running: number): number {
    if (lagMs > this.lagTargetMs) {
      this.current = Math.max(1, Math.min(this.current, Math.floor(running * BACK_OFF_TO)));
    } else if (lagMs < this.lagTargetMs * CALM_SHARE) {
      this.current = Math.min(this.ceiling, this.current + Math.max(1, Math.floor(this.current * GROWTH)));
    }
    return this.current;
  }
}
