/**
 * What a stopping worker does with the jobs it is still running once its drain time is up:
 * hands each back to the queue at once, so another worker continues it now instead of after
 * the lock expires and a stalled check notices. The hand-back is `moveToDelayed(now)` with the
 * job's lock token rather than `moveToWait`: for a job with a priority (every turn's last
 * stage) BullMQ 6's moveToWait sets no marker, so idle workers would only see it at their next
 * blocking-poll timeout, up to 5 s later; a due delayed job wakes them at once. Neither counts
 * as an attempt.
 *
 * A handed-back handler may still be running in this process for a moment. It is fenced off:
 * the job's own view of the event log, the user-event publisher, the producer and the model
 * client refuse every call from then on, so it can neither stream one more token after the
 * other worker's `restart` nor enqueue a next stage twice. Its processor promise settles with
 * BullMQ's `DelayedError`, which tells BullMQ the job was moved on purpose (not failed).
 */
import { DelayedError, type Job } from "bullmq";
import type { Logger } from "pino";
import type { WorkerDeps } from "./deps";

/** Thrown into a handed-back handler by every fenced dependency. */
export class JobHandedBack extends Error {
  constructor() {
    super("this worker is shutting down and handed the job back to the queue");
    this.name = "JobHandedBack";
  }
}

/** One running job as the shutdown sees it. */
export interface JobLease {
  /** The dependencies the handler gets: the worker's own, fenced once the job is handed back. */
  deps: WorkerDeps;
  /** True once the job was handed back; its handler's outcome no longer counts. */
  readonly handedBack: boolean;
  /** Settles like `work`, unless the job is handed back first (then rejects with DelayedError). */
  run<T>(work: Promise<T>): Promise<T>;
}

interface Tracked {
  job: Job;
  token: string;
  fence: AbortController;
  handBack(): Promise<void>;
}

export class ActiveJobs {
  private readonly running = new Set<Tracked>();
  private idleWaiters: Array<() => void> = [];
  private handingBack = false;

  constructor(private readonly log: Logger) {}

  get size(): number {
    return this.running.size;
  }

  lease(job: Job, token: string, deps: WorkerDeps): JobLease {
    const fence = new AbortController();
    let announceHandedBack!: (error: Error) => void;
    const handedBack = new Promise<never>((_, reject) => (announceHandedBack = reject));
    handedBack.catch(() => undefined);
    const tracked: Tracked = {
      job,
      token,
      fence,
      handBack: async () => {
        if (fence.signal.aborted) return;
        fence.abort();
        // Tokens the job streamed before the fence, still held for their frame, reach the log before another worker's `restart` can.
        await deps.events.flushed().catch(() => undefined);
        try {
          await job.moveToDelayed(Date.now(), token);
        } catch (error) {
          // The lock was already gone: the stalled checker hands the job on instead.
          this.log.warn({ err: error, jobId: job.id }, "could not hand the job back; it is left to the stalled check");
        }
        announceHandedBack(new DelayedError(`job ${job.id} handed back by a stopping worker`));
      },
    };
    this.running.add(tracked);
    // A job fetched in the instant between the hand-back and the workers' close goes straight back.
    if (this.handingBack) void tracked.handBack();
    const forget = (): void => {
      this.running.delete(tracked);
      if (this.running.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
    return {
      deps: fenced(deps, fence.signal),
      get handedBack() {
        return fence.signal.aborted;
      },
      run: <T>(work: Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          work.then(
            (value) => {
              if (!fence.signal.aborted) resolve(value);
            },
            (error) => {
              if (!fence.signal.aborted) reject(error);
            },
          );
          handedBack.catch(reject);
        }).finally(forget),
    };
  }

  /** Resolves once no job is running, or after `ms`, whichever comes first. */
  async drain(ms: number): Promise<void> {
    if (this.running.size === 0 || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Hands every running job back to its queue; returns how many. */
  async handBackAll(): Promise<number> {
    this.handingBack = true;
    const jobs = [...this.running].filter((tracked) => !tracked.fence.signal.aborted);
    await Promise.all(jobs.map((tracked) => tracked.handBack()));
    if (jobs.length > 0)
      this.log.info({ jobs: jobs.map((tracked) => ({ queue: tracked.job.queueName, jobId: tracked.job.id })) }, "handed running jobs back to their queues");
    return jobs.length;
  }
}

/** The worker's dependencies, with the side-effecting clients refusing calls once `signal` aborts. */
function fenced(deps: WorkerDeps, signal: AbortSignal): WorkerDeps {
  return {
    ...deps,
    events: guard(deps.events, signal),
    userEvents: guard(deps.userEvents, signal),
    producer: guard(deps.producer, signal),
    llm: guard(deps.llm, signal),
  };
}

function guard<T extends object>(target: T, signal: AbortSignal): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (signal.aborted) throw new JobHandedBack();
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}
