/**
 * Time to first token as the employee feels it: from the moment this node accepted the turn
 * (message stored, work queued) to the first `token` event of that turn. Only the accepting node
 * knows the start, so each turn is timed exactly once in the cluster: sum this histogram across
 * nodes (unlike the turn counters, which every node sees). Bounded: turns that never stream a
 * token (errors, cancelled before the answer, a lost publish) are dropped when they end or age out.
 */
const MAX_TRACKED = 10_000;
const MAX_AGE_MS = 10 * 60_000;

export class FirstTokenClock {
  private readonly started = new Map<string, number>();

  constructor(private readonly observe: (seconds: number) => void) {}

  accepted(turnId: string, now = performance.now()): void {
    this.prune(now);
    this.started.set(turnId, now);
  }

  /** A `token` event of the turn arrived; only the first one after acceptance counts. */
  token(turnId: string, now = performance.now()): void {
    const since = this.started.get(turnId);
    if (since === undefined) return;
    this.started.delete(turnId);
    this.observe((now - since) / 1000);
  }

  ended(turnId: string): void {
    this.started.delete(turnId);
  }

  get tracked(): number {
    return this.started.size;
  }

  // Map iteration follows insertion, so the oldest entries come first.
  private prune(now: number): void {
    for (const [turnId, since] of this.started) {
      if (this.started.size < MAX_TRACKED && now - since < MAX_AGE_MS) break;
      this.started.delete(turnId);
    }
  }
}
