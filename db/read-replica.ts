/**
 * Reads that may lag a little (retrieval searches, conversation history) go to a streaming
 * replica when one is configured; every other query keeps using the primary. A replica that is
 * down, not a standby, or replays more than `maxLagMs` behind is skipped for the primary, and a
 * read that fails because the replica went away mid-query is run again on the primary, so a
 * replica never fails a read. Each skipped read is counted (`onSkip`) for /metrics.
 *
 * Lag is measured against the primary, not from the replica's own clock: every check samples
 * the primary's WAL position, and the replica is as far behind as the oldest sample it has not
 * replayed yet. (`now() - pg_last_xact_replay_timestamp()` alone reads "hours" on an idle
 * primary, and a receive position equal to the replay position says nothing when the WAL
 * receiver itself is stuck.)
 */
import type { Db } from "./knex";
import { isDatabaseUnavailable } from "./unavailable";

export type ReadSkipReason = "down" | "lagging";

export interface ReadRouterOptions {
  primary: Db;
  /** Unset: every read goes to the primary and nothing is checked. */
  replica?: Db;
  maxLagMs: number;
  checkIntervalMs?: number;
  /** One call per read sent to the primary because the replica was skipped. */
  onSkip?: (reason: ReadSkipReason) => void;
  /** Told when the replica's state changes (for the log). */
  onState?: (state: ReplicaState) => void;
}

export interface ReplicaState {
  usable: boolean;
  reason?: ReadSkipReason;
  lagMs?: number;
}

/** `16/B374D848` → one comparable number. */
function lsnValue(lsn: string): bigint {
  const [high = "0", low = "0"] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** A query error that means "this replica cannot serve reads now", so the primary should: gone, or a read cancelled by recovery (40001). */
function replicaFailed(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error as { code?: unknown } | undefined)?.code === "40001";
}

export class ReadRouter {
  private state: ReplicaState = { usable: false, reason: "down" };
  private readonly samples: Array<{ lsn: bigint; at: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly options: ReadRouterOptions) {}

  current(): ReplicaState {
    return this.state;
  }

  /** Runs `query` on the replica when it is usable, else (or when it fails there for want of a replica) on the primary. */
  async read<T>(query: (db: Db) => Promise<T>): Promise<T> {
    const { replica, primary } = this.options;
    if (!replica) return query(primary);
    if (!this.state.usable) {
      this.options.onSkip?.(this.state.reason ?? "down");
      return query(primary);
    }
    try {
      return await query(replica);
    } catch (error) {
      if (!replicaFailed(error)) throw error;
      this.setState({ usable: false, reason: "down" });
      this.options.onSkip?.("down");
      return query(primary);
    }
  }

  /** Checks once now (so the first reads already know), then every `checkIntervalMs`. */
  async start(): Promise<void> {
    if (!this.options.replica) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs ?? 1_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  /** One health check; overlapping calls share the one in flight. */
  check(): Promise<void> {
    this.checking ??= this.measure().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async measure(): Promise<void> {
    const { primary, replica, maxLagMs } = this.options;
    try {
      const now = Date.now();
      const current = await primary.raw<{ rows: Array<{ lsn: string }> }>("select pg_current_wal_lsn()::text as lsn");
      this.samples.push({ lsn: lsnValue(current.rows[0]!.lsn), at: now });
      // A replica down for hours would keep every sample: enough to tell it is past the limit is enough.
      const keep = Math.ceil(maxLagMs / (this.options.checkIntervalMs ?? 1_000)) + 10;
      if (this.samples.length > keep) this.samples.splice(0, this.samples.length - keep);
    } catch {
      // The primary is unreachable: its reads fail on their own; judge the replica on the samples so far.
    }
    try {
      const result = await replica!.raw<{ rows: Array<{ standby: boolean; lsn: string | null }> }>(
        "select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn",
      );
      const row = result.rows[0]!;
      if (!row.standby || !row.lsn) {
        // Promoted, or not a replica at all: its data may have forked from the primary's.
        this.setState({ usable: false, reason: "down" });
        return;
      }
      const replayed = lsnValue(row.lsn);
      // Samples the replica has replayed past tell nothing more; the oldest one it has not is how far behind it is.
      while (this.samples.length > 0 && this.samples[0]!.lsn <= replayed) this.samples.shift();
      const lagMs = this.samples.length > 0 ? Date.now() - this.samples[0]!.at : 0;
      this.setState(lagMs > maxLagMs ? { usable: false, reason: "lagging", lagMs } : { usable: true, lagMs });
    } catch {
      this.setState({ usable: false, reason: "down" });
    }
  }

  private setState(next: ReplicaState): void {
    const changed = next.usable !== this.state.usable || next.reason !== this.state.reason;
    this.state = next;
    if (changed) this.options.onState?.(next);
  }
}
