/**
 * A bounded map of decisions trusted for a while (an organisation's size, which of its indexes is
 * valid, a term's frequency): an entry older than `ttlMs` is read as missing, and past
 * `maxEntries` the map starts over rather than tracking recency — what it holds is cheap to read again.
 * One lives in a process's deps (workers/deps.ts `searchCaches`), never at module level, so a
 * test or a bench that builds its own gets a fresh one and needs no "forget" hook.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && this.now() - entry.at < this.ttlMs ? entry.value : undefined;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, at: this.now() });
  }
}
