/**
 * A cooldown breaker per model, one per LLM client (a worker process holds one client, in its
 * deps). Once a model fails after its retries, every request through that client skips it for a while, so concurrent requests don't each pay for
 * the same dead model: about a minute after rate limits or outages, an hour after a 404.
 */
import type { FaultKind } from "./errors";

const COOLDOWN_MS: Record<FaultKind, number> = {
  rate_limited: 60_000,
  transient: 60_000,
  not_found: 3_600_000,
  auth: 300_000,
  rejected: 0,
};

export class ModelCooldowns {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  trip(key: string, kind: FaultKind, retryAfterMs?: number): void {
    const duration = Math.max(COOLDOWN_MS[kind], retryAfterMs ?? 0);
    if (duration > 0) this.until.set(key, this.now() + duration);
  }

  isCooling(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until <= this.now()) {
      this.until.delete(key);
      return false;
    }
    return true;
  }

  /**
   * The chain in the order to try: models not cooling down, in configured order. When every
   * model is cooling, the one that recovers first is tried rather than failing outright.
   */
  order(keys: string[]): string[] {
    const ready = keys.filter((key) => !this.isCooling(key));
    if (ready.length > 0) return ready;
    const soonest = [...keys].sort((a, b) => (this.until.get(a) ?? 0) - (this.until.get(b) ?? 0))[0];
    return soonest ? [soonest] : [];
  }

  clear(): void {
    this.until.clear();
  }
}
