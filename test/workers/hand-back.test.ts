/**
 * ActiveJobs (workers/hand-back.ts) on a real BullMQ queue: a lease settles like its work until
 * the job is handed back; then the job is due again at once without an attempt used, the lease
 * rejects with BullMQ's DelayedError, and the handler's side-effecting clients refuse calls.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { DelayedError, type Job, Queue, Worker } from "bullmq";
import type { Logger } from "pino";
import { QUEUE_PREFIX } from "../../queues/names";
import { ActiveJobs, JobHandedBack, type JobLease } from "../../workers/hand-back";
import { TurnEventLog } from "../../queues/events/turn-stream";
import { useStack, type Stack } from "../support/stack";

interface Held {
  job: Job;
  lease: JobLease;
  /** Lets the handler finish (resolve) once the test says so. */
  finish(value: string): void;
  outcome: Promise<unknown>;
}

describe("ActiveJobs: handing running jobs back on shutdown", function () {
  this.timeout(30_000);
  let stack: Stack;
  let queue: Queue;
  let worker: Worker;
  let active: ActiveJobs;
  let warnings: unknown[];
  const held: Held[] = [];
  const waiting: Array<(entry: Held) => void> = [];

  const nextHeld = (): Promise<Held> =>
    new Promise((resolve) => {
      const ready = held.shift();
      if (ready) resolve(ready);
      else waiting.push(resolve);
    });

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    warnings = [];
    const log = { warn: (...args: unknown[]) => warnings.push(args), info: () => undefined } as unknown as Logger;
    active = new ActiveJobs(log);
    const name = `hand-back-test-${randomUUID()}`;
    const connection = stack.workers.deps.redis.duplicate({ maxRetriesPerRequest: null });
    queue = new Queue(name, { connection, prefix: QUEUE_PREFIX });
    worker = new Worker(
      name,
      (job, token) => {
        const lease = active.lease(job, token!, stack.workers.deps);
        let finish!: (value: string) => void;
        const work = new Promise<string>((resolve) => (finish = resolve));
        const outcome = lease.run(work);
        const entry: Held = {
          job,
          lease,
          finish,
          outcome: outcome.then(
            (value) => value,
            (error: unknown) => error,
          ),
        };
        const waiter = waiting.shift();
        if (waiter) waiter(entry);
        else held.push(entry);
        return outcome;
      },
      { connection: connection.duplicate(), prefix: QUEUE_PREFIX, concurrency: 1, autorun: false },
    );
  });

  after(async () => {
    await worker.close(true);
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it("settles a lease like its work while the job is not handed back, and drains once it is done", async () => {
    void worker.run();
    await queue.add("job", { n: 1 }, { attempts: 3 });
    const first = await nextHeld();
    expect(active.size).to.equal(1);
    expect(first.lease.handedBack).to.equal(false);
    // Unfenced: the lease's deps work like the worker's own.
    expect(first.lease.deps.llm.modelChain("tutor")).to.deep.equal(stack.workers.deps.llm.modelChain("tutor"));
    const drained = active.drain(20_000);
    first.finish("answered");
    expect(await first.outcome).to.equal("answered");
    await drained;
    expect(active.size).to.equal(0);
    await waitForState(first.job, "completed");
  });

  it("hands a running job back: due again at once, no attempt used, the lease rejects with DelayedError, the fenced clients refuse", async () => {
    await worker.pause(true);
    await queue.add("job", { n: 2 }, { attempts: 3 });
    void worker.resume();
    const running = await nextHeld();
    const fencedDeps = running.lease.deps;
    await worker.pause(true).catch(() => undefined);

    expect(await active.handBackAll()).to.equal(1);
    expect(running.lease.handedBack).to.equal(true);
    const outcome = await running.outcome;
    expect(outcome).to.be.instanceOf(DelayedError);
    // The handler finishing later no longer counts.
    running.finish("too late");

    const job = (await queue.getJob(running.job.id!))!;
    expect(["delayed", "waiting", "prioritized"]).to.include(await job.getState());
    expect(job.attemptsMade, "a hand-back is not an attempt").to.equal(0);
    expect(job.delay === 0 || job.timestamp + job.delay <= Date.now() + 50, "due at once").to.equal(true);

    expect(() => fencedDeps.llm.modelChain("tutor")).to.throw(JobHandedBack);
    expect(() => fencedDeps.events.appendToken(randomUUID(), randomUUID(), "one more token")).to.throw(JobHandedBack);
    expect(() => fencedDeps.producer.queue("tutor-generate")).to.throw(JobHandedBack);
    // Plain values pass through, and the worker's own clients are untouched.
    expect(fencedDeps.config).to.equal(stack.workers.deps.config);
    expect(stack.workers.deps.llm.modelChain("tutor").length).to.be.greaterThan(0);
    expect(warnings).to.deep.equal([]);
  });

  it("sends the tokens a job's turn holds for a frame to the log before the job goes back to the queue", async () => {
    const log = new TurnEventLog(stack.workers.deps.redis, { ttlSeconds: 60, maxEvents: 1000, frameMs: 10_000, framesFromStreams: 0 });
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const jobs = new ActiveJobs({ warn: () => undefined, info: () => undefined } as unknown as Logger);
    let loggedWhenMoved: string[] | undefined;
    const job = {
      id: "frame-job",
      queueName: "tutor-generate",
      moveToDelayed: async () => {
        loggedWhenMoved = (await log.read(turnId, 1)).map((entry) => (entry.payload as { content?: string }).content ?? "");
      },
    } as unknown as Job;
    const lease = jobs.lease(job, "lock-token", { ...stack.workers.deps, events: log });
    lease.run(new Promise(() => undefined)).catch(() => undefined);
    await lease.deps.events.appendToken(sessionId, turnId, "first ");
    void lease.deps.events.appendToken(sessionId, turnId, "held");
    expect(await jobs.handBackAll()).to.equal(1);
    expect(loggedWhenMoved, "both tokens were in the log when another worker could take the job").to.deep.equal(["first ", "held"]);
  });

  it("sends a job leased after the hand-back began straight back", async () => {
    void worker.resume();
    // The job handed back above is picked up again; the stopping worker returns it at once.
    const again = await nextHeld();
    expect(again.lease.handedBack).to.equal(true);
    expect(await again.outcome).to.be.instanceOf(DelayedError);
    // Until it stops, this worker keeps fetching the job and returning it; pausing waits for the last return.
    await worker.pause();
    const job = (await queue.getJob(again.job.id!))!;
    expect(job.attemptsMade).to.equal(0);
    expect(active.size).to.equal(0);
  });
});

async function waitForState(job: Job, state: string): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if ((await job.getState()) === state) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${job.id} never reached ${state}`);
}
