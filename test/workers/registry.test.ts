import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { HANDLERS } from "../../workers/handlers";
import type { HandlerMap } from "../../workers/registry";
import { parseQueueSelection } from "../../workers/host";
import { QUEUE_NAMES, QUEUE_PREFIX } from "../../queues/names";
import { createRedis } from "../../queues/connection";
import { TUTOR_STAGE_QUEUES, tutorStageJobId } from "../../queues/job-ids";
import { JobProducer } from "../../queues/producer";
import { useStack } from "../support/stack";

describe("worker registry", () => {
  it("files every queue's handler under that queue, and a missing handler does not type-check", () => {
    for (const queue of QUEUE_NAMES) expect(HANDLERS[queue].queue).to.equal(queue);
    const { "tutor-retrieve": _dropped, ...withoutRetrieve } = HANDLERS;
    // @ts-expect-error a map without a tutor-retrieve handler is not a HandlerMap (tsc fails if this ever type-checks)
    const incomplete: HandlerMap = withoutRetrieve;
    expect(Object.keys(incomplete)).to.not.include("tutor-retrieve");
  });

  it("parses WORKER_QUEUES with per-queue concurrency", () => {
    expect(Object.fromEntries(parseQueueSelection("tutor-generate:50,chat-summarise", 3))).to.deep.equal({ "tutor-generate": 50, "chat-summarise": 3 });
    const all = parseQueueSelection("all", 2);
    expect(all.size).to.equal(QUEUE_NAMES.length);
    expect(all.get("tutor-generate")).to.equal(8, "model-bound generation gets 4x the default");
    expect(all.get("tutor-classify")).to.equal(2);
    expect(() => parseQueueSelection("tutor-nope:2", 1)).to.throw(/unknown queue "tutor-nope"/);
  });
});

/**
 * BullMQ moves a flow parent whose children finished to the front of its wait list, so without
 * the parents' priority turns waiting together are answered newest first. Here the stages run one
 * at a time, each stage only after every turn finished the one before, which is exactly when that
 * ordering shows: generation must still follow the order the turns were accepted in.
 */
describe("tutor turns under load", function () {
  this.timeout(60_000);
  let redis: Redis;
  let producer: JobProducer;
  const workers: Worker[] = [];

  before(async function () {
    this.timeout(120_000);
    const stack = await useStack();
    // A database index of its own, so the stack's workers never see these jobs.
    redis = createRedis({ url: `${stack.env.REDIS_URL}/7` }, "worker");
    await redis.flushdb();
    producer = new JobProducer(redis);
  });
  after(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await producer.close();
    await redis.flushdb();
    await redis.quit();
  });

  it("reach generation first come, first served", async () => {
    const turns = Array.from({ length: 5 }, () => randomUUID());
    for (const turnId of turns) {
      await producer.enqueueTutorTurn({
        orgId: randomUUID(),
        userId: randomUUID(),
        sessionId: randomUUID(),
        turnId,
        messageId: randomUUID(),
        courseId: null,
        lessonId: null,
      });
    }
    const order: Record<string, string[]> = {};
    for (const queue of TUTOR_STAGE_QUEUES) {
      order[queue] = [];
      const worker = new Worker(queue, async (job) => void order[queue]!.push(job.data.turnId), {
        connection: redis.duplicate(),
        prefix: QUEUE_PREFIX,
        concurrency: 1,
      });
      workers.push(worker);
      const started = Date.now();
      while (order[queue]!.length < turns.length && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 50));
      await worker.pause();
      expect(order[queue], queue).to.have.length(turns.length);
    }
    expect(order["tutor-generate"]).to.deep.equal(turns);
    expect(order["tutor-retrieve"]).to.deep.equal(turns);
    const generated = await producer.queue("tutor-generate").getJob(tutorStageJobId("tutor-generate", turns[0]!));
    expect(await generated?.getState()).to.equal("completed");
  });
});
