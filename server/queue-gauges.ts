/**
 * Gauges read from Redis at scrape time, so they describe the whole cluster whichever node is
 * scraped: jobs per queue and state, how long the head of each queue has waited (the backlog
 * alert), and how many workers serve each queue (the "no workers" alert). A scrape while Redis
 * is down leaves these series out (`skillnet_dependency_up` says why) instead of failing. The
 * copies of a queue (QUEUE_SHARDS) are summed under its name (the oldest wait: the longest; workers: the copy with fewest).
 */
import type { Job, Queue } from "bullmq";
import { Gauge, type Registry } from "prom-client";
import type { Logger } from "pino";
import type { JobProducer } from "../queues/producer";

const JOB_STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "completed", "failed"] as const;

/**
 * When a job became ready to run, as near as BullMQ records it: added (plus any delay), or last
 * started if it went back to the queue since (a retry or a stalled hand-back). A flow parent's
 * age also includes its children's run, which is short next to what the backlog alert looks for.
 */
function readySince(job: Job): number {
  return Math.max(job.timestamp + (job.opts.delay ?? 0), job.processedOn ?? 0);
}

/** The head of the plain wait list (oldest, FIFO) and of the priority set (next to run). */
async function oldestWaitingAgeSeconds(queue: Queue, now: number): Promise<number> {
  const [waiting, prioritized] = await Promise.all([queue.getJobs(["waiting"], 0, 0, true), queue.getJobs(["prioritized"], 0, 0, true)]);
  const heads = [...waiting, ...prioritized].filter(Boolean) as Job[];
  if (heads.length === 0) return 0;
  return Math.max(0, (now - Math.min(...heads.map(readySince))) / 1000);
}

export function registerQueueGauges(registry: Registry, producer: Pick<JobProducer, "allQueues">, log?: Logger): void {
  const perQueue = async (read: (queue: Queue) => Promise<void>): Promise<void> => {
    try {
      await Promise.all(producer.allQueues().map(read));
    } catch (error) {
      log?.warn({ err: error }, "queue metrics unavailable: Redis did not answer");
    }
  };

  new Gauge({
    name: "skillnet_queue_jobs",
    help: "Jobs per queue and state (all workers)",
    labelNames: ["queue", "state"],
    registers: [registry],
    async collect() {
      this.reset();
      // Copies of a queue (QUEUE_SHARDS) add up under its one name.
      await perQueue(async (queue) => {
        const counts = await queue.getJobCounts(...JOB_STATES);
        for (const state of JOB_STATES) this.inc({ queue: queue.name, state }, counts[state] ?? 0);
      });
    },
  });

  new Gauge({
    name: "skillnet_queue_oldest_waiting_seconds",
    help: "Seconds the longest-waiting ready job of each queue has waited (0 when none waits)",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      const oldest = new Map<string, number>();
      await perQueue(async (queue) => {
        oldest.set(queue.name, Math.max(oldest.get(queue.name) ?? 0, await oldestWaitingAgeSeconds(queue, now)));
      });
      for (const [queue, seconds] of oldest) this.set({ queue }, seconds);
    },
  });

  new Gauge({
    name: "skillnet_queue_workers",
    help: "Worker connections serving each queue, across all worker processes",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      this.reset();
      // Of a queue's copies, the one with fewest workers: a copy nobody serves is what the alert is for.
      const fewest = new Map<string, number>();
      await perQueue(async (queue) => {
        const count = await queue.getWorkersCount();
        fewest.set(queue.name, Math.min(fewest.get(queue.name) ?? count, count));
      });
      for (const [queue, count] of fewest) this.set({ queue }, count);
    },
  });
}
