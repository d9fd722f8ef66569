import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { HANDLERS } from "../../../workers/handlers";
import { parseQueueSelection } from "../../../workers/host";
import { QUEUE_NAMES, QUEUE_PREFIX } from "../../../queues/names";
import { createRedis } from "../../../queues/connection";
import { TUTOR_TURN_JOB_NAME, tutorTurnJobId } from "../../../queues/job-ids";
import { JobProducer } from "../../../queues/producer";
import { useDatabase } from "../../support/database";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");

describe("worker registry", () => {
  it("files every queue's handler under that queue, and a missing or misfiled handler does not type-check", function () {
    this.timeout(30_000);
    expect(Object.keys(HANDLERS).sort()).to.deep.equal([...QUEUE_NAMES].sort());
    for (const queue of QUEUE_NAMES) expect(HANDLERS[queue].queue).to.equal(queue);
    // The compiler is the check: three small modules against the real HandlerMap, compiled by tsc.
    const dir = mkdtempSync(join(tmpdir(), "registry-types-"));
    const header = `import { HANDLERS } from "${ROOT}/workers/handlers";\nimport type { HandlerMap } from "${ROOT}/workers/registry";\n`;
    const modules = {
      "complete.ts": "export const all: HandlerMap = HANDLERS;",
      "missing.ts": 'const { "chat-summarise": _dropped, ...rest } = HANDLERS;\nexport const incomplete: HandlerMap = rest;',
      "misfiled.ts": 'export const misfiled: HandlerMap = { ...HANDLERS, "chat-summarise": HANDLERS["tutor-generate"] };',
    };
    try {
      for (const [name, body] of Object.entries(modules)) writeFileSync(join(dir, name), `${header}${body}\n`);
      const tsc = spawnSync(
        join(ROOT, "node_modules/.bin/tsc"),
        [
          "--ignoreConfig",
          "--noEmit",
          "--strict",
          "--skipLibCheck",
          "--target",
          "ES2023",
          "--module",
          "ESNext",
          "--moduleResolution",
          "bundler",
          "--types",
          "node",
          ...Object.keys(modules).map((name) => join(dir, name)),
        ],
        { encoding: "utf8" },
      );
      const output = tsc.stdout + tsc.stderr;
      const erroredFiles = new Set([...output.matchAll(/([a-z]+\.ts)\(\d+,\d+\): error/g)].map((match) => match[1]));
      expect([...erroredFiles].sort(), output).to.deep.equal(["misfiled.ts", "missing.ts"]);
      expect(output).to.match(/missing\.ts\(\d+,\d+\): error TS\d+: Property '"chat-summarise"' is missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses WORKER_QUEUES with per-queue concurrency; model-bound queues follow the load unless a number pins them", () => {
    const defaults = { concurrency: 3, modelCeiling: (queues: number) => 240 / queues };
    expect(Object.fromEntries(parseQueueSelection("tutor-generate:50,chat-summarise", defaults))).to.deep.equal({
      "tutor-generate": { fixed: 50 },
      "chat-summarise": { fixed: 3 },
    });
    expect(Object.fromEntries(parseQueueSelection("tutor-generate,ingest-embed:2", defaults))).to.deep.equal({
      "tutor-generate": { adaptiveUpTo: 240 },
      "ingest-embed": { fixed: 2 },
    });
    const all = parseQueueSelection("all", defaults);
    expect(all.size).to.equal(QUEUE_NAMES.length);
    expect(all.get("tutor-generate")).to.deep.equal({ adaptiveUpTo: 240 }, "each model-bound queue may take the whole ceiling (followLoad shares it)");
    expect(all.get("admin-plan")).to.deep.equal({ adaptiveUpTo: 240 });
    expect(all.get("chat-summarise")).to.deep.equal({ fixed: 3 });
    expect(all.get("maintenance")).to.deep.equal({ fixed: 1 });
    const pinned = parseQueueSelection("all", { ...defaults, modelConcurrency: 16 });
    expect(pinned.get("tutor-generate")).to.deep.equal({ fixed: 16 }, "WORKER_MODEL_CONCURRENCY fixes them");
    expect(pinned.get("chat-summarise")).to.deep.equal({ fixed: 3 });
    expect(() => parseQueueSelection("tutor-nope:2", defaults)).to.throw(/unknown queue "tutor-nope"/);
  });
});

/**
 * A tutor turn is one job on `tutor-generate`. Turns waiting together must be answered in the
 * order they were accepted: the turns are all queued before one worker takes any, which is when a
 * LIFO wait list (BullMQ's for flow parents) would show.
 */
describe("tutor turns under load", function () {
  this.timeout(60_000);
  let redis: Redis;
  let producer: JobProducer;
  const workers: Worker[] = [];

  before(async function () {
    this.timeout(120_000);
    const lane = await useDatabase();
    // A database index of its own, so no other suite's jobs are ever seen here.
    redis = createRedis({ url: `${lane.config.redis.REDIS_URL}/7` }, "worker", lane.deps.log);
    await redis.flushdb();
    producer = new JobProducer(redis, lane.deps.log);
  });
  after(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await producer.close();
    await redis.flushdb();
    await redis.quit();
  });

  it("reach generation first come, first served, each as one job", async () => {
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
    const order: string[] = [];
    const worker = new Worker("tutor-generate", async (job) => void order.push(`${job.name}:${job.data.turnId}`), {
      connection: redis.duplicate(),
      prefix: QUEUE_PREFIX,
      concurrency: 1,
    });
    workers.push(worker);
    const started = Date.now();
    while (order.length < turns.length && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 50));
    await worker.pause();
    expect(order).to.deep.equal(turns.map((turnId) => `${TUTOR_TURN_JOB_NAME}:${turnId}`));
    const generated = await producer.queue("tutor-generate").getJob(tutorTurnJobId(turns[0]!));
    expect(await generated?.getState()).to.equal("completed");
  });
});
