/**
 * A token bucket per key, in memory: `capacity` events at once, refilled at `perSecond`. It is
 * what a single socket may send before anything else looks at the event — no parsing, no I/O —
 * so a flood is refused at the cost of one map lookup and some arithmetic per event.
 */
interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {}

  /** Takes one token for `key`: 0 when admitted, else the milliseconds until one is available. */
  take(key: string, now = Date.now()): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000));
  }

  /** Forgets `key` (its socket is gone). */
  delete(key: string): void {
    this.buckets.delete(key);
  }
}
