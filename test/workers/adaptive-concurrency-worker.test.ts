/**
 * Model-bound concurrency that follows the load, on the real stack: workers from host.ts serving
 * `tutor-generate` on real Redis, turns posted to the server, the scripted model streaming slowly.
 * The event-loop delay comes from an injected lag source, so the test decides when the worker
 * lags without starving the rest of the stack in this process (the real sampler is
 * exercised in adaptive-concurrency.test.ts). While lagging the worker leaves new jobs queued
 * and finishes what it runs; calm again, it takes them. Another organisation's turn still starts in the
 * fair reserve slot while the worker backs off. A number in WORKER_QUEUES stays fixed.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Queue } from "bullmq";
import { parseConfig } from "../../lib/config";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import type { LagSource } from "../../workers/load-follower";
import { modelStreamCeiling } from "../../workers/adaptive-concurrency";
import { ModelCooldowns } from "../../workers/llm/cooldowns";
import { api, login, waitFor } from "../harness/client";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { stackWorker } from "../reliability/helpers";
import { freshEmployee, removeFreshEmployees, scriptedResponder, type Learner } from "./tutor/helpers";
import { testEnv } from "../support/tunables";

/** About 130 words at 50 ms a token: each answer streams for several seconds. */
const LONG_ANSWER = Array.from({ length: 13 }, (_, i) => `Point ${i + 1} of the returns policy applies to this order.`).join(" ");
/**
 * For turns that must still be streaming after another organisation's turn has started (about 20 s at 50 ms a
 * token): on a loaded machine that start took long enough for 13 points to end, and a finished turn frees its slot.
 */
const LONGER_ANSWER = Array.from({ length: 40 }, (_, i) => `Point ${i + 1} of the returns policy applies to this order.`).join(" ");
const LAGGING_MS = 100;

interface Turn {
  sessionId: string;
  turnId: string;
}

describe("model-bound concurrency that follows the load (workers/load-follower.ts on host.ts)", function () {
  this.timeout(120_000);
  let stack: Stack;
  let own: RunningWorkers | undefined;
  let lagMs = 0;
  const lag: LagSource = { read: () => lagMs, stop: () => undefined };

  /** Workers of this test's own, on the stack's environment plus `overrides`, reading the injected lag. */
  const startOwn = (overrides: Record<string, string>) =>
    startWorkers(parseConfig(testEnv({ ...process.env, ...overrides })), {
      skipEmbeddingCheck: true,
      lag,
      llm: { retry: { attempts: 2, baseDelayMs: 50, maxDelayMs: 200 }, cooldowns: new ModelCooldowns() },
    });

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    // The stack's own generate workers step aside: these tests' workers take the queue.
    await stackWorker(stack, "tutor-generate").pause();
  });
  after(() => stackWorker(stack, "tutor-generate").resume());
  afterEach(async () => {
    lagMs = 0;
    await own?.close();
    own = undefined;
    stack.llm.setResponder(null);
    stack.llm.reset();
    await removeFreshEmployees(stack);
  });

  async function post(learner: Learner, message: string): Promise<Turn> {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message } });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    return { sessionId: posted.body.session_id as string, turnId: posted.body.turn_id as string };
  }
  const stateOf = (turn: Turn) => stack.server.deps.producer.turnFinalStageState("tutor", turn);
  const startedAt = async (turn: Turn) => {
    const [job] = stack.server.deps.producer.turnJobs("tutor", turn);
    return (await stack.server.deps.producer.queue(job!.queue, job!.shard).getJob(job!.jobId))?.processedOn ?? 0;
  };

  const generateQueue = (): Queue => stack.server.deps.producer.queue("tutor-generate", 0);
  const counts = async () => {
    const byState = await generateQueue().getJobCounts("active", "waiting", "prioritized", "delayed");
    return { active: byState.active ?? 0, queued: (byState.waiting ?? 0) + (byState.prioritized ?? 0) + (byState.delayed ?? 0) };
  };

  it("takes no new job while the event loop lags, finishes the running ones, and takes the queued ones once calm", async () => {
    // No reserve slot: the test counts the normal slots only (the reserve follows them: fair-reserve.ts).
    own = await startOwn({ WORKER_QUEUES: "tutor-generate", WORKER_MODEL_CONCURRENCY: "", WORKER_LAG_TARGET_MS: "20", FAIR_RESERVED_SLOTS: "0" });
    const worker = own.workers.find((candidate) => candidate.name === "tutor-generate")!;
    expect(worker.concurrency, "the default: the heap's ceiling, not 16").to.equal(modelStreamCeiling(1)).and.be.above(16);

    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => LONG_ANSWER }));
    stack.llm.setTokenDelay(50);
    const learner = await freshEmployee(stack);
    const first = await Promise.all([1, 2, 3, 4].map((n) => post(learner, `Returns question ${n}, point by point?`)));
    await waitFor(async () => (await counts()).active === 4 || undefined, 30_000, "the first four turns to run");

    lagMs = LAGGING_MS;
    await waitFor(() => worker.concurrency < 4 || undefined, 5_000, "the limit to drop below what runs");
    expect(worker.concurrency).to.equal(2, "70 % of the four running");
    const laggedAt = Date.now();
    const later = await Promise.all([5, 6, 7].map((n) => post(learner, `Returns question ${n}, point by point?`)));
    // Over three windows, the running answers still streaming: the new turns stay queued, where
    // another worker could take them. The one fetch BullMQ had already waiting on Redis when the
    // limit dropped may still bring a job; no other is taken.
    for (let window = 0; window < 3; window++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = await counts();
      expect(now.active, "running: the four, and at most the one fetch already waiting").to.be.within(4, 5);
      expect(now.queued, "left in the queue while lagging").to.be.at.least(2);
    }
    const states = await Promise.all(first.map(stateOf));
    expect(
      states.every((state) => state === "active"),
      "nothing running was cancelled",
    ).to.equal(true);

    lagMs = 0;
    const calmAt = Date.now();
    // What is left streams at once: the test is about when turns start, not how long they take.
    stack.llm.setTokenDelay(0);
    const all = [...first, ...later];
    await waitFor(
      async () => {
        const finished = await Promise.all(all.map(stateOf));
        return finished.every((state) => state === "completed") || undefined;
      },
      90_000,
      "every turn to complete",
    );
    const started = await Promise.all(later.map(startedAt));
    expect(started.filter((at) => at >= calmAt).length, "the turns left while lagging started once calm").to.be.at.least(2);
    expect(started.every((at) => at >= laggedAt)).to.equal(true);
    await waitFor(() => worker.concurrency > 4 || undefined, 5_000, "the limit to climb back towards the ceiling");
  });

  it("while it backs off, another organisation's turn still starts in the reserve slot, while the first organisation's backlog waits", async () => {
    own = await startOwn({ WORKER_QUEUES: "tutor-generate", WORKER_MODEL_CONCURRENCY: "", WORKER_LAG_TARGET_MS: "20", FAIR_RESERVED_SLOTS: "1" });
    const worker = own.workers.find((candidate) => candidate.name === "tutor-generate")!;
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => LONGER_ANSWER }));
    stack.llm.setTokenDelay(50);
    const db = stack.server.deps.db;
    const suffix = randomUUID().slice(0, 8);
    const [{ id: otherOrg }] = await db("organizations")
      .insert({ name: `Adaptive B ${suffix}`, slug: `adaptive-b-${suffix}` })
      .returning("id");
    try {
      const email = `adaptive-b-${suffix}@example.com`;
      await db("users").insert({ org_id: otherOrg, email, name: "B person", role: "employee", department: "QA", locale: "es" });
      const other = (await login(stack.baseUrl, email)).token;
      const learner = await freshEmployee(stack);
      const first = await Promise.all([1, 2, 3, 4].map((n) => post(learner, `Returns question ${n}, point by point?`)));
      await waitFor(async () => (await counts()).active === 4 || undefined, 30_000, "the first four turns to run");
      lagMs = LAGGING_MS;
      await waitFor(() => worker.concurrency < 4 || undefined, 5_000, "the limit to drop below what runs");
      const backlog = await Promise.all([5, 6, 7].map((n) => post(learner, `Returns question ${n}, point by point?`)));
      // What someone in the second organisation types: a hedge, in their own language.
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: other,
        body: { message: "perdón, no estoy segura… ¿cuántos días tengo para devolver algo?" },
      });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
      const newcomer = { sessionId: posted.body.session_id as string, turnId: posted.body.turn_id as string };
      await waitFor(async () => ((await stateOf(newcomer)) === "active" ? true : undefined), 10_000, "the other organisation's turn to start");
      // The reserve slot takes the head of the line and puts a heavy organisation's job straight back
      // (workers/fair-reserve.ts), so one read of the states can catch a backlog job in its hands for a
      // moment. A job counts as waiting when any of four reads 200 ms apart finds it not running; one that runs
      // streams for seconds and is found running by all four.
      const waiting = new Set<number>();
      for (let read = 0; read < 4; read++) {
        (await Promise.all(backlog.map(stateOf))).forEach((state, index) => {
          if (state !== "active" && state !== "completed") waiting.add(index);
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(waiting.size, "the lagging worker still leaves the first organisation's backlog queued").to.be.at.least(2);
      expect(await Promise.all(first.map(stateOf)), "nothing running was cancelled").to.deep.equal(["active", "active", "active", "active"]);
      lagMs = 0;
      stack.llm.setTokenDelay(0);
      await waitFor(
        async () => ((await Promise.all([...first, ...backlog, newcomer].map(stateOf))).every((state) => state === "completed") ? true : undefined),
        90_000,
        "every turn of both organisations to complete",
      );
    } finally {
      await dropOrganisations(db, [otherOrg]);
    }
  });

  it("keeps a number given in WORKER_QUEUES fixed, lag or not", async () => {
    own = await startOwn({ WORKER_QUEUES: "tutor-generate:5", WORKER_MODEL_CONCURRENCY: "" });
    const worker = own.workers.find((candidate) => candidate.name === "tutor-generate")!;
    expect(worker.concurrency).to.equal(5);
    lagMs = LAGGING_MS;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(worker.concurrency, "three windows of lag later").to.equal(5);
  });
});
