/**
 * Fair priorities (queues/fair-share.ts) put a newcomer's job at the head of the line, but it
 * still waits for a slot to free: with every slot held by one organisation's six-second streams,
 * that is up to one whole stream. So each copy of a fair queue gets FAIR_RESERVED_SLOTS extra
 * slots, on top of its concurrency, that take a job only while every normal slot is busy and only
 * of an organisation running fewer than RESERVE_HELD_BELOW jobs of that queue in this process. A
 * heavy organisation keeps every slot it had before (its throughput does not change) and a light
 * one starts at once.
 *
 * BullMQ hands a worker the head of the line and cannot skip it, so the reserve takes the head and,
 * when its organisation is heavy, puts it straight back in its place (`moveToDelayed(now)` keeps
 * the job's priority and uses no attempt), then waits RESERVE_RECHECK_MS before asking again:
 * a few cheap scripts a second while a heavy backlog waits, nothing on the turn's own path.
 */
import { DelayedError, type Job } from "bullmq";

/** An organisation running fewer jobs than this here may use the reserve. */
export const RESERVE_HELD_BELOW = 2;
/** How long a reserve slot rests after putting a heavy organisation's job back. */
export const RESERVE_RECHECK_MS = 100;

/** Jobs running in this process per queue and organisation, and per queue copy in its normal slots. */
export class OrgSlots {
  private readonly held = new Map<string, number>();
  private readonly busy = new Map<string, number>();

  heldBy(queue: string, orgId: string): number {
    return this.held.get(`${queue}/${orgId}`) ?? 0;
  }

  /** Jobs running in the normal slots of copy `shard` of `queue`. */
  running(queue: string, shard: number): number {
    return this.busy.get(`${queue}#${shard}`) ?? 0;
  }

  /** Runs `work` in a normal slot of copy `shard`, counted for its organisation while it runs. */
  hold<T>(queue: string, shard: number, orgId: string | undefined, work: () => Promise<T>): Promise<T> {
    return count(this.busy, `${queue}#${shard}`, () => (orgId ? count(this.held, `${queue}/${orgId}`, work) : work()));
  }

  /**
   * The processor of a reserved slot of copy `shard` (whose normal slots number `capacity`): runs
   * the job when every normal slot is busy and its organisation is light; otherwise puts it back
   * in its place (a normal slot takes it, or it waits its turn), rests, and ends the attempt as
   * moved on purpose (DelayedError).
   */
  async reserve<T>(queue: string, shard: number, capacity: number, job: Job, token: string, work: () => Promise<T>): Promise<T> {
    const orgId = typeof job.data?.orgId === "string" ? (job.data.orgId as string) : undefined;
    const normalFull = (this.busy.get(`${queue}#${shard}`) ?? 0) >= capacity;
    if (normalFull && (!orgId || this.heldBy(queue, orgId) < RESERVE_HELD_BELOW)) {
      return orgId ? count(this.held, `${queue}/${orgId}`, work) : work();
    }
    await job.moveToDelayed(Date.now(), token);
    await new Promise((resolve) => setTimeout(resolve, RESERVE_RECHECK_MS));
    throw new DelayedError();
  }
}

async function count<T>(counts: Map<string, number>, key: string, work: () => Promise<T>): Promise<T> {
  counts.set(key, (counts.get(key) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const left = (counts.get(key) ?? 1) - 1;
    if (left === 0) counts.delete(key);
    else counts.set(key, left);
  }
}
