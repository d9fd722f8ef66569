/**
 * The fair-share clock on a real Redis with real BullMQ queues and workers (own prefix per test):
 * jobs of organisations interleave round-robin, a newcomer starts next whatever is queued, a lone
 * organisation is not charged later for capacity nobody else wanted, a retried job keeps its
 * place, and the clock rebases below BullMQ's priority cap without changing the order.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { FairShare } from "../../../queues/fair-share";
import { type DatabaseLane, useDatabase } from "../../support/database";

interface Probe {
  queue: Queue;
  prefix: string;
  fair: FairShare;
  add(org: string, label: string, options?: { attempts?: number }): Promise<void>;
  /** Runs the queue with one slot until `count` jobs finished; returns labels in start order. */
  run(count: number, processor?: (job: Job) => Promise<void>): Promise<string[]>;
}

describe("fair queues between organisations (queues/fair-share.ts)", function () {
  this.timeout(30_000);
  let lane: DatabaseLane;
  let redis: Redis;
  const opened: Array<Queue | Worker> = [];

  before(async function () {
    this.timeout(120_000);
    lane = await useDatabase();
    redis = new Redis(lane.config.redis.REDIS_URL!, { maxRetriesPerRequest: null });
  });
  after(async () => {
    await Promise.all(opened.map((item) => item.close()));
    await redis.quit();
  });

  function probe(limit?: number): Probe {
    const prefix = `fairtest-${randomUUID().slice(0, 8)}`;
    const queue = new Queue("tutor-generate", { connection: redis, prefix });
    opened.push(queue);
    const fair = new FairShare(redis, limit);
    return {
      queue,
      prefix,
      fair,
      async add(org, label, options = {}) {
        const priority = await fair.priorityFor(prefix, "tutor-generate", org);
        await queue.add(label, { org }, { priority, attempts: options.attempts ?? 1, removeOnComplete: false });
      },
      async run(count, processor) {
        const started: string[] = [];
        let finished = 0;
        let done!: () => void;
        const all = new Promise<void>((resolve) => (done = resolve));
        const worker = new Worker(
          "tutor-generate",
          async (job) => {
            started.push(job.name);
            await processor?.(job);
          },
          { connection: redis, prefix, concurrency: 1 },
        );
        opened.push(worker);
        const settle = () => {
          if (++finished === count) done();
        };
        worker.on("completed", settle);
        worker.on("failed", (job) => {
          if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) settle();
        });
        await all;
        await worker.close();
        return started;
      },
    };
  }

  it("starts a newcomer's first job next, behind at most one job of each organisation already queued", async () => {
    const q = probe();
    for (let i = 1; i <= 30; i++) await q.add("A", `A${i}`);
    await q.add("B", "B1");
    const order = await q.run(31);
    expect(order.indexOf("B1")).to.be.at.most(1);
    expect(order.filter((label) => label.startsWith("A"))).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => `A${i + 1}`),
      "A's own jobs stay in order",
    );
  });

  it("interleaves the backlogs of several organisations round-robin", async () => {
    const q = probe();
    for (let i = 1; i <= 6; i++) await q.add("A", `A${i}`);
    for (let i = 1; i <= 6; i++) await q.add("B", `B${i}`);
    for (let i = 1; i <= 2; i++) await q.add("C", `C${i}`);
    const order = await q.run(14);
    expect(
      order
        .slice(0, 6)
        .map((label) => label[0])
        .sort(),
    ).to.deep.equal(["A", "A", "B", "B", "C", "C"]);
    expect(order.slice(6)).to.deep.equal(["A3", "B3", "A4", "B4", "A5", "B5", "A6", "B6"]);
  });

  it("does not charge an organisation later for capacity nobody else wanted", async () => {
    const q = probe();
    for (let i = 1; i <= 20; i++) await q.add("A", `A${i}`);
    await q.run(20);
    // The queue is idle again: A and a newcomer now share it equally.
    for (let i = 21; i <= 24; i++) await q.add("A", `A${i}`);
    for (let i = 1; i <= 4; i++) await q.add("B", `B${i}`);
    const order = await q.run(8);
    for (let k = 0; k < 4; k++) expect(order.slice(2 * k, 2 * k + 2).sort(), `round ${k + 1}: ${order.join(" ")}`).to.deep.equal([`A${21 + k}`, `B${1 + k}`]);
  });

  it("gives a retried job back its place, ahead of work queued after it, and loses nothing", async () => {
    const q = probe();
    await q.add("A", "A1", { attempts: 2 });
    for (let i = 2; i <= 5; i++) await q.add("A", `A${i}`);
    for (let i = 1; i <= 4; i++) await q.add("B", `B${i}`);
    let failedOnce = false;
    const order = await q.run(9, async (job) => {
      if (job.name === "A1" && !failedOnce) {
        failedOnce = true;
        throw new Error("first attempt fails");
      }
    });
    expect(order.filter((label) => label === "A1")).to.have.length(2);
    // The retry runs at A1's place (priority 1), before the jobs of round 2 and later.
    expect(order.indexOf("A1", 1)).to.be.at.most(2);
    const completed = await q.queue.getJobs(["completed"]);
    expect(completed.map((job) => job.name).sort()).to.deep.equal(["A1", "A2", "A3", "A4", "A5", "B1", "B2", "B3", "B4"]);
  });

  it("rebases the clock below the priority cap, keeping the order of queued and delayed jobs", async () => {
    const q = probe(40);
    for (let round = 0; round < 5; round++) {
      for (let i = 1; i <= 12; i++) await q.add("A", `A${round}-${i}`);
      await q.run(12);
    }
    // A backlog that crosses the cap: A queues 30, a delayed job of A waits, B arrives.
    const delayedPriority = await q.fair.priorityFor(q.prefix, "tutor-generate", "A");
    const delayed = await q.queue.add("A-delayed", { org: "A" }, { priority: delayedPriority, delay: 60_000 });
    for (let i = 1; i <= 30; i++) await q.add("A", `A${i}`);
    await q.add("B", "B1");
    const priorities = (await q.queue.getJobs(["prioritized", "delayed"])).map((job) => job.priority);
    expect(Math.max(...priorities)).to.be.at.most(40);
    expect((await q.queue.getJob(delayed.id!))!.priority).to.be.at.most(delayedPriority);
    await q.queue.remove(delayed.id!);
    const order = await q.run(31);
    expect(order.indexOf("B1")).to.be.at.most(1);
    expect(order.filter((label) => label.startsWith("A"))).to.deep.equal(Array.from({ length: 30 }, (_, i) => `A${i + 1}`));
  });
});
