/**
 * An in-process sliding-window counter: the current fixed window's count plus the previous
 * one's, weighted by how much of it still overlaps the sliding window. Constant memory and
 * time per key and no I/O, so refusing a flood costs next to nothing.
 */
interface Counts {
  start: number;
  current: number;
  previous: number;
}

/** Stale keys are swept once the map grows past this, so idle users do not accumulate. */
const SWEEP_AT = 10_000;

export class LocalWindow {
  private readonly counts = new Map<string, Counts>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request for `key`: 0 when admitted, else the milliseconds until one would be. */
  take(key: string, now = Date.now()): number {
    const counts = this.roll(this.counts.get(key), now);
    const elapsed = now - counts.start;
    const estimate = counts.previous * (1 - elapsed / this.windowMs) + counts.current;
    this.counts.set(key, counts);
    if (estimate < this.limit) {
      counts.current += 1;
      if (this.counts.size > SWEEP_AT && now - this.lastSweep >= this.windowMs) this.sweep(now);
      return 0;
    }
    // When the previous window's weight will have shrunk enough, or at the latest when this one ends.
    const fromPrevious = counts.previous > 0 ? this.windowMs * (1 - (this.limit - counts.current) / counts.previous) : Infinity;
    const until = counts.current >= this.limit ? this.windowMs : Math.min(this.windowMs, fromPrevious);
    return Math.max(1, Math.ceil(until - elapsed));
  }

  private roll(counts: Counts | undefined, now: number): Counts {
    const start = now - (now % this.windowMs);
    if (!counts || start - counts.start >= 2 * this.windowMs) return { start, current: 0, previous: 0 };
    if (start !== counts.start) return { start, current: 0, previous: counts.current };
    return counts;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, counts] of this.counts) {
      if (now - counts.start >= 2 * this.windowMs) this.counts.delete(key);
    }
  }
}
