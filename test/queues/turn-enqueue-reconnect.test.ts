/**
 * A turn sent while the server's queue connection is reconnecting (a Redis restart; behind
 * Sentinel, the moment a promoted master is being found) is queued once Redis answers again,
 * within TURN_ENQUEUE_RETRY_MS, instead of answering 503 for an outage that was over a moment
 * later: a producer connection gives up after one reconnect attempt. A Redis that stays away
 * still ends in the refusal within that bound, and a second submission of a turn that did land
 * queues nothing twice.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import pino from "pino";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { createRedis } from "../../queues/connection";
import { JobProducer } from "../../queues/producer";
import type { Redis } from "ioredis";

const turn = () => ({
  orgId: randomUUID(),
  userId: randomUUID(),
  sessionId: randomUUID(),
  turnId: randomUUID(),
  messageId: randomUUID(),
  courseId: null,
  lessonId: null,
});

describe("a turn's enqueue across a Redis reconnect (queues/producer.ts)", function () {
  this.timeout(60_000);
  const log = pino({ level: "silent" });
  let dir: string;
  let port: number;
  let redis: ManagedChild | undefined;
  let connection: Redis;
  let producer: JobProducer;

  const startRedis = async () => {
    redis = (await startEmbeddedRedis({ port, dataDir: dir, persistent: false, log: () => undefined })).child;
  };

  before(async function () {
    this.timeout(60_000);
    dir = mkdtempSync(join(tmpdir(), "skillnet-enqueue-reconnect-"));
    port = await findFreePort();
    await startRedis();
    connection = createRedis({ url: `redis://127.0.0.1:${port}` }, "producer", log);
    producer = new JobProducer(connection, log);
  });

  after(async () => {
    await Promise.all(producer?.allQueues().map((queue) => queue.close().catch(() => undefined)) ?? []);
    connection?.disconnect();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("queues a turn sent while Redis restarts, once it is back, and a second submission of it is a no-op", async () => {
    const queued = turn();
    await producer.enqueueTutorTurn(turn()); // the connection is up and the queue known
    await redis!.stop();
    const sent = performance.now();
    const enqueue = producer.enqueueTutorTurn(queued);
    let settled = false;
    enqueue.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(settled, "the enqueue waits for Redis rather than failing at once").to.equal(false);
    await startRedis();
    await enqueue;
    expect(performance.now() - sent).to.be.lessThan(3_500);
    const queue = producer.queue("tutor-generate");
    const jobs = await queue.getJobs(["prioritized", "wait"]);
    expect(jobs.filter((job) => job.data.turnId === queued.turnId)).to.have.length(1);
    await producer.enqueueTutorTurn(queued);
    const again = await queue.getJobs(["prioritized", "wait"]);
    expect(
      again.filter((job) => job.data.turnId === queued.turnId),
      "the same turn sent twice is one job",
    ).to.have.length(1);
  });

  it("refuses within its bound when Redis stays away, and an invalid payload at once", async () => {
    await redis!.stop();
    const sent = performance.now();
    const refused = await producer.enqueueTutorTurn(turn()).then(
      () => undefined,
      (error: unknown) => error,
    );
    const waited = performance.now() - sent;
    expect(refused).to.be.instanceOf(Error);
    expect(waited).to.be.at.least(2_500).and.lessThan(10_000);
    const invalid = performance.now();
    const badPayload = await producer.enqueueTutorTurn({ ...turn(), turnId: "not-a-uuid" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(badPayload).to.be.instanceOf(Error);
    expect(performance.now() - invalid).to.be.lessThan(100);
    await startRedis();
  });
});
