/**
 * The load-following limit of model-bound queues (workers/adaptive-concurrency.ts), fed lag
 * samples and running counts by hand, and the follower (workers/load-follower.ts) moving a
 * worker's concurrency with an injected lag source. On a real BullMQ worker:
 * adaptive-concurrency-worker.test.ts.
 */
import { expect } from "chai";
import type { Logger } from "pino";
import { AdaptiveLimit, MAX_MODEL_STREAMS, modelStreamCeiling, STREAM_HEAP_BYTES } from "../../../workers/adaptive-concurrency";
import { eventLoopLag, followLoad, type LagSource } from "../../../workers/load-follower";

const TARGET = 25;
const LAGGING = 80;
const CALM = 2;

describe("the adaptive limit of model-bound queues (workers/adaptive-concurrency.ts)", () => {
  it("starts at its ceiling and stays there while the loop is calm", () => {
    const limit = new AdaptiveLimit(200, TARGET);
    expect(limit.limit).to.equal(200);
    for (let i = 0; i < 10; i++) expect(limit.next(CALM, 150)).to.equal(200);
  });

  it("drops below what is running while the loop lags, never below 1", () => {
    const limit = new AdaptiveLimit(200, TARGET);
    const first = limit.next(LAGGING, 120);
    expect(first, "below the 120 running: no new job starts here").to.be.below(120);
    expect(first).to.equal(84);
    // Still lagging as jobs finish: the limit follows what runs down, always under it.
    let running = 120;
    for (let i = 0; i < 30; i++) {
      running = Math.max(0, running - 10);
      const next = limit.next(LAGGING, running);
      expect(next).to.be.at.least(1);
      if (running > 1) expect(next).to.be.below(running);
    }
    expect(limit.limit).to.equal(1, "nothing running, still lagging: one slot is kept");
    expect(limit.next(500, 0)).to.equal(1);
  });

  it("does not raise itself while lagging, even with fewer jobs running than the limit", () => {
    const limit = new AdaptiveLimit(100, TARGET);
    limit.next(LAGGING, 40);
    expect(limit.limit).to.equal(28);
    expect(limit.next(LAGGING, 10)).to.equal(7);
    expect(limit.next(LAGGING, 50)).to.equal(7, "more running (a reserve slot, a pending fetch) never lifts it under lag");
  });

  it("holds between half the target and the target, so it does not flap", () => {
    const limit = new AdaptiveLimit(100, TARGET);
    limit.next(LAGGING, 50);
    expect(limit.limit).to.equal(35);
    for (let i = 0; i < 5; i++) expect(limit.next(TARGET * 0.75, 35)).to.equal(35);
    expect(limit.next(TARGET, 35)).to.equal(35, "exactly at the target is not over it");
  });

  it("climbs back to its ceiling once calm, and never past it", () => {
    const limit = new AdaptiveLimit(MAX_MODEL_STREAMS, TARGET);
    limit.next(LAGGING, 1);
    expect(limit.limit).to.equal(1);
    const seen: number[] = [];
    for (let i = 0; i < 40; i++) seen.push(limit.next(CALM, 0));
    expect(seen.slice(0, 4)).to.deep.equal([2, 3, 4, 5]);
    expect(seen.every((value, i) => i === 0 || value >= seen[i - 1]!)).to.equal(true, "only rises while calm");
    expect(seen.indexOf(MAX_MODEL_STREAMS) + 1, "windows from 1 to 500 (the doc comment's figure)").to.equal(27);
    expect(Math.max(...seen)).to.equal(MAX_MODEL_STREAMS);
  });

  it("refuses a ceiling below 1", () => {
    expect(() => new AdaptiveLimit(0, TARGET)).to.throw(/at least 1/);
  });

  it("derives the ceiling from the heap, bounded, and shares it between the model-bound queues", () => {
    expect(modelStreamCeiling(1, 4 * 2 ** 30)).to.equal(MAX_MODEL_STREAMS, "a 4 GiB heap allows 512: the hard bound wins");
    expect(modelStreamCeiling(2, 4 * 2 ** 30)).to.equal(250);
    expect(modelStreamCeiling(1, 512 * 2 ** 20)).to.equal(64, "half of 512 MiB at 4 MiB a stream");
    expect(modelStreamCeiling(2, STREAM_HEAP_BYTES)).to.equal(1, "a tiny heap still leaves one slot");
    expect(modelStreamCeiling(0)).to.be.within(1, MAX_MODEL_STREAMS);
  });
});

describe("following the load (workers/load-follower.ts)", () => {
  const silent = { info: () => undefined } as unknown as Logger;

  it("measures the event loop's delay: a loop kept busy reads far above the target, a calm one below it", async () => {
    const lag = eventLoopLag();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      lag.read();
      // 300 ms of 60 ms blocks with a turn of the loop between them.
      for (let block = 0; block < 5; block++) {
        const until = performance.now() + 60;
        while (performance.now() < until);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      const busy = lag.read();
      expect(busy, "mean delay while busy").to.be.above(TARGET);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lag.read(), "calm again").to.be.below(busy);
    } finally {
      lag.stop();
    }
  });

  it("sets the worker's concurrency from each window's lag and stops with its lag source", async () => {
    let lagMs = LAGGING;
    let stopped = false;
    const lag: LagSource = { read: () => lagMs, stop: () => void (stopped = true) };
    const worker = { concurrency: 50 };
    const stop = followLoad([{ queue: "tutor-generate", worker, limit: new AdaptiveLimit(50, TARGET), running: () => 20 }], lag, silent, { windowMs: 20 });
    await waitUntil(() => worker.concurrency === 14);
    lagMs = CALM;
    await waitUntil(() => worker.concurrency === 50);
    stop();
    expect(stopped).to.equal(true);
    const after = worker.concurrency;
    lagMs = LAGGING;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(worker.concurrency, "stopped: no more changes").to.equal(after);
  });

  it("shares the process's budget between the followed queues: one takes what the other leaves, never more", async () => {
    const tutor = { concurrency: 100 };
    const admin = { concurrency: 100 };
    let adminRunning = 70;
    const stop = followLoad(
      [
        { queue: "tutor-generate", worker: tutor, limit: new AdaptiveLimit(100, TARGET), running: () => 20 },
        { queue: "admin-plan", worker: admin, limit: new AdaptiveLimit(100, TARGET), running: () => adminRunning },
      ],
      { read: () => CALM, stop: () => undefined },
      silent,
      { windowMs: 10, budget: 100 },
    );
    await waitUntil(() => tutor.concurrency === 30 && admin.concurrency === 80);
    adminRunning = 0;
    await waitUntil(() => tutor.concurrency === 100);
    expect(admin.concurrency, "the admin queue keeps room for what runs elsewhere").to.equal(80);
    stop();
  });

  it("logs a change of limit at most once per five seconds, with the queue's limit, running jobs and the lag", async () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const log = { info: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) } as unknown as Logger;
    let lagMs = LAGGING;
    const worker = { concurrency: 40 };
    const stop = followLoad(
      [{ queue: "admin-plan", worker, limit: new AdaptiveLimit(40, TARGET), running: () => 10 }],
      { read: () => lagMs, stop: () => undefined },
      log,
      { windowMs: 10 },
    );
    await waitUntil(() => worker.concurrency === 7);
    lagMs = CALM;
    await waitUntil(() => worker.concurrency === 40);
    stop();
    expect(lines, "two changes within a few windows: one line").to.have.length(1);
    expect(lines[0]!.message).to.equal("model-bound concurrency changed");
    expect(lines[0]!.fields).to.deep.equal({ lagMs: LAGGING, queues: { "admin-plan": { limit: 7, running: 10, ceiling: 40 } } });
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 5_000) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
