/**
 * One organisation cannot starve another, on the real stack (server, BullMQ workers, Redis,
 * Postgres, the scripted model streaming slowly): organisation A queues a backlog larger than the
 * workers' slots, organisation B then submits one piece of work, and B's job must start while
 * A's backlog is still waiting — by start order, read from BullMQ's own `processedOn`, never by
 * a wall-clock threshold (the wait in seconds is measured in scripts/bench/fairness.ts).
 * On the FIFO queues of before, B's job started after every one of A's.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, login, upload, waitFor } from "../harness/client";
import { makeTxt } from "../support/document-fixtures";
import { stackSuite } from "../support/suite";
import type { Stack } from "../support/stack";
import type { QueueName } from "../../queues/names";
import { dropOrganisations } from "../support/organizations";

interface Org {
  id: string;
  tokens: string[];
}

async function freshOrg(stack: Stack, label: string, people: number, role: "employee" | "admin"): Promise<Org> {
  const db = stack.server.deps.db;
  const suffix = randomUUID().slice(0, 8);
  const [{ id }] = await db("organizations")
    .insert({ name: `Fair ${label}`, slug: `fair-${label.toLowerCase()}-${suffix}` })
    .returning("id");
  const tokens: string[] = [];
  for (let i = 0; i < people; i++) {
    const email = `fair-${label.toLowerCase()}-${suffix}-${i}@example.com`;
    await db("users").insert({ org_id: id, email, name: `${label} person ${i}`, role, department: "QA", locale: "en" });
    tokens.push((await login(stack.baseUrl, email)).token);
  }
  return { id, tokens };
}

interface Stamps {
  queued: number;
  started: number;
  /** Attempts before the one that completed: a retried job runs again at its first place. */
  retried: boolean;
}

/** When each job was queued and started (BullMQ's timestamp and processedOn). */
async function stampsOf(stack: Stack, queue: QueueName, jobs: Array<{ jobId: string; shard: number }>): Promise<Stamps[]> {
  return Promise.all(
    jobs.map(async ({ jobId, shard }) => {
      const job = await stack.server.deps.producer.queue(queue, shard).getJob(jobId);
      expect(job?.processedOn, `${queue} job ${jobId} ran`).to.be.a("number");
      return { queued: job!.timestamp, started: job!.processedOn!, retried: job!.attemptsMade > 1 };
    }),
  );
}

/**
 * The backlog's jobs that were waiting when the newcomer's job was queued (queued before it,
 * started after it was queued), and how many of those started before the newcomer's did. A job
 * retried meanwhile is left out: its retry rightly goes back to the place it had, ahead of B.
 */
/**
 * How many of the waiting jobs may still start first: a quarter of them (at least one). Start
 * stamps are taken by each worker as it takes a job, and a job's queued stamp is the producer's
 * clock just before its priority is handed out, so jobs enqueued within a few milliseconds of the
 * newcomer's, or taken by a slot that was already freeing, can land either side of it; the
 * starvation this guards against (FIFO) lets every waiting job go first.
 */
const allowedFirst = (waiting: number): number => Math.max(1, Math.floor(waiting / 4));

function overtaken(backlog: Stamps[], newcomer: Stamps): { waiting: number; startedFirst: number } {
  const waiting = backlog.filter((job) => !job.retried && job.queued <= newcomer.queued && job.started > newcomer.queued);
  return { waiting: waiting.length, startedFirst: waiting.filter((job) => job.started < newcomer.started).length };
}

describe("fair queues between organisations, end to end", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000 });
  const orgs: string[] = [];
  after(async () => {
    // Users, sessions and documents go with their organisation.
    await dropOrganisations(stack.server.deps.db, orgs);
  });

  async function chatTurns(path: string, tokens: string[], count: number, word: string): Promise<Array<{ sessionId: string; turnId: string }>> {
    const posted = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        api(stack.baseUrl, "POST", path, { token: tokens[i % tokens.length], body: { message: `${word} ${i}: how do refunds work?` } }),
      ),
    );
    return posted.map((response) => {
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      return { sessionId: response.body.session_id as string, turnId: response.body.turn_id as string };
    });
  }

  async function waitForAnswers(agentType: "tutor" | "admin", turns: Array<{ sessionId: string; turnId: string }>): Promise<void> {
    await waitFor(
      async () => {
        const states = await Promise.all(turns.map((turn) => stack.server.deps.producer.turnFinalStageState(agentType, turn)));
        return states.every((state) => state === "completed") || undefined;
      },
      90_000,
      `every ${agentType} turn to complete`,
    );
  }

  for (const agentType of ["tutor", "admin"] as const) {
    it(`starts another organisation's ${agentType} turn while the first one's backlog of streaming turns still waits`, async () => {
      const role = agentType === "tutor" ? "employee" : "admin";
      const path = agentType === "tutor" ? "/api/v1/chat" : "/api/v1/chat/admin";
      const queue: QueueName = agentType === "tutor" ? "tutor-generate" : "admin-plan";
      const [a, b] = [await freshOrg(stack, "A", 3, role), await freshOrg(stack, "B", 1, role)];
      orgs.push(a.id, b.id);
      // Every answer streams for a few seconds, so A's 40 turns outlast the 16 slots several times over.
      stack.llm.setResponder(() => ({
        content: "Refunds are processed within five working days of the return being received at the warehouse, and exchanges need the receipt. ".repeat(3),
      }));
      stack.llm.setTokenDelay(50);

      const backlog = await chatTurns(path, a.tokens, 40, "backlog");
      const [newcomer] = await chatTurns(path, b.tokens, 1, "newcomer");
      await waitForAnswers(agentType, [...backlog, newcomer!]);

      const jobOf = (turn: { sessionId: string; turnId: string }) => stack.server.deps.producer.turnJobs(agentType, turn).find((job) => job.queue === queue)!;
      const backlogStamps = await stampsOf(stack, queue, backlog.map(jobOf));
      const [newcomerStamps] = await stampsOf(stack, queue, [jobOf(newcomer!)]);
      // 16 slots take A's first 16 turns; B's turn goes in at the head of those still queued and,
      // with every normal slot held by A, takes the reserved slot: it starts before all of them.
      const { waiting, startedFirst } = overtaken(backlogStamps, newcomerStamps!);
      expect(waiting, "A's turns waiting when B's was queued").to.be.at.least(10);
      expect(startedFirst, `of A's ${waiting} waiting turns, those that started before B's`).to.be.at.most(allowedFirst(waiting));
    });
  }

  it("embeds another organisation's upload while the first one's batch still waits, and loses nothing when an embedding call fails", async () => {
    const [a, b] = [await freshOrg(stack, "A", 1, "admin"), await freshOrg(stack, "B", 1, "admin")];
    orgs.push(a.id, b.id);
    // Slow embeddings make ingest-embed the bottleneck: A's batch queues there behind 4 slots.
    stack.llm.setEmbeddingDelay(1_500);
    // One failed embeddings call: the job retries (backoff) and keeps its fair place.
    stack.llm.failEmbeddings(503);
    setTimeout(() => stack.llm.failEmbeddings(null), 200);
    const file = (label: string, n: number) => ({
      name: `fair-${label}-${n}.txt`,
      bytes: makeTxt(`Handbook ${label} part ${n} ${randomUUID()}.\n\nRefunds take five days; exchanges take three.`),
      type: "text/plain",
    });
    const uploaded = async (token: string, label: string, n: number) => {
      const response = await upload(stack.baseUrl, token, file(label, n));
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      return response.body.document_id as string;
    };
    const batch = await Promise.all(Array.from({ length: 20 }, (_, n) => uploaded(a.tokens[0]!, "a", n)));
    // B uploads once A's batch is queued at the embedding stage (B's own upload passes A's at
    // extract and chunk, so uploading at once could reach embed before A's backlog is there).
    const embedQueue = stack.server.deps.producer.queue("ingest-embed", 0);
    await waitFor(
      async () => ((await embedQueue.getJobCounts("prioritized", "waiting")).prioritized ?? 0) >= 10 || undefined,
      60_000,
      "A's embed jobs to queue up",
    );
    const single = await uploaded(b.tokens[0]!, "b", 0);

    for (const [id, token] of [...batch.map((id) => [id, a.tokens[0]!] as const), [single, b.tokens[0]!] as const]) {
      const document = await waitFor(
        async () => {
          const response = await api(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token });
          return ["COMPLETED", "FAILED"].includes(response.body.status) ? response.body : undefined;
        },
        90_000,
        `document ${id} to be indexed`,
      );
      expect(document.status, JSON.stringify(document)).to.equal("COMPLETED");
    }
    const generationOf = async (id: string) => (await stack.server.deps.db("documents").where({ id }).first("ingest_generation")).ingest_generation as number;
    const embedJob = async (id: string) => ({ jobId: `${id}-g${await generationOf(id)}-embed`, shard: 0 });
    const backlogStamps = await stampsOf(stack, "ingest-embed", await Promise.all(batch.map(embedJob)));
    const [newcomerStamps] = await stampsOf(stack, "ingest-embed", [await embedJob(single)]);
    const { waiting, startedFirst } = overtaken(backlogStamps, newcomerStamps!);
    console.log(`      embed: ${waiting} of A's jobs waiting when B's was queued, ${startedFirst} started first`);
    expect(waiting, "A's embed jobs waiting when B's was queued").to.be.at.least(4);
    expect(startedFirst, `of A's ${waiting} waiting embed jobs, those that started before B's`).to.be.at.most(allowedFirst(waiting));
  });
});
