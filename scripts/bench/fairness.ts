/**
 * Measure 9, fairness between organisations (issue 30): organisation A queues a backlog — turns
 * whose answers stream for seconds, or a batch of uploads — and organisation B then submits one
 * turn or one document. Reported: B's time (first token; upload → COMPLETED) under A's backlog
 * against B's time on the idle system (goal ≤ 2×), and the backlog's own throughput (goal within
 * 10 % of the FIFO queues of before: run this module on both and compare).
 *
 * One server and one worker at the product's default concurrency (16 tutor slots, 4 per
 * ingestion stage); A's turns are posted without sockets (nobody watches them), B's turns are
 * watched on a socket like a browser's. Completion of A's work is read from the queues.
 */
import { Queue } from "bullmq";
import pg from "pg";
import { QUEUE_PREFIX } from "../../queues/names";
import { BenchSession, devLogin, QUESTION } from "./clients";
import type { BenchSettings } from "./settings";
import { startBenchStack, type BenchStack } from "./stack";
import { fmt, percentile, pool, sleep, table } from "./stats";

/** The issue's streaming answer: 60 tokens 100 ms apart, about 6 s. */
const STREAM = { tokens: 60, intervalMs: 100 };
/** B's samples: on the idle system one after another, under the backlog spaced this far apart. */
const SAMPLES = 5;
const SAMPLE_SPACING_MS = 3_000;

const ENV = { WORKER_CONCURRENCY: "4" };
const TURN_TIMEOUT_MS = 30 * 60_000;

async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** A second organisation with one admin and one employee, signed in. */
async function secondOrganisation(stack: BenchStack): Promise<{ orgId: string; admin: string; employee: string }> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("INSERT INTO organizations (name, slug) VALUES ('Org B', 'bench-org-b') RETURNING id");
    const orgId = rows[0].id as string;
    for (const role of ["admin", "employee"]) {
      await client.query("INSERT INTO users (org_id, email, name, role, department, locale) VALUES ($1, $2, $3, $4, 'Ops', 'en')", [
        orgId,
        `${role}@org-b.example.com`,
        `B ${role}`,
        role,
      ]);
    }
    const base = stack.servers[0]!;
    return { orgId, admin: await devLogin(base, "admin@org-b.example.com"), employee: await devLogin(base, "employee@org-b.example.com") };
  } finally {
    await client.end();
  }
}

/** One of B's samples: its time, and the job ids whose queue wait is part of it. */
interface Sample {
  ms: number;
  jobs: Array<{ queue: string; id: string }>;
}

/** Time to the first token of one turn in a new session of B's. */
async function firstToken(base: string, token: string): Promise<Sample> {
  const session = await BenchSession.open(base, token);
  try {
    // On FIFO queues B's turn waits behind the whole backlog: minutes, not the client's usual 2.
    const record = await session.turn(QUESTION, TURN_TIMEOUT_MS);
    if (record.failed || record.firstToken === undefined) throw new Error(`B's turn failed: ${record.failed}`);
    return { ms: record.firstToken - record.posted, jobs: [{ queue: "tutor-generate", id: `${record.turnId}-generate` }] };
  } finally {
    session.close();
  }
}

/** How long a sample's jobs waited in their queues in all (created → started), from BullMQ's own stamps. */
async function queueWaitMs(stack: BenchStack, sample: Sample): Promise<number> {
  let total = 0;
  for (const { queue: name, id } of sample.jobs) {
    const queue = new Queue(name, { connection: { url: stack.redisUrl }, prefix: QUEUE_PREFIX });
    const job = await queue.getJob(id);
    await queue.close();
    if (job?.processedOn) total += job.processedOn - job.timestamp;
  }
  return total;
}

/** Resolves when the queues hold no waiting, prioritized, delayed or active job. */
async function drained(stack: BenchStack, names: string[]): Promise<void> {
  const queues = names.map((name) => new Queue(name, { connection: { url: stack.redisUrl }, prefix: QUEUE_PREFIX }));
  try {
    for (;;) {
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts("waiting", "prioritized", "delayed", "active")));
      if (counts.every((count) => Object.values(count).every((n) => n === 0))) return;
      await sleep(200);
    }
  } finally {
    await Promise.all(queues.map((queue) => queue.close()));
  }
}

interface Outcome {
  idle: number[];
  loaded: number[];
  /** Of `loaded`: the part B's jobs spent waiting in the queues. */
  loadedQueueWait: number[];
  backlog: number;
  backlogSeconds: number;
}

async function outcome(stack: BenchStack, idle: Sample[], loaded: Sample[], backlog: number, started: number): Promise<Outcome> {
  const backlogSeconds = (performance.now() - started) / 1000;
  const loadedQueueWait = await Promise.all(loaded.map((sample) => queueWaitMs(stack, sample)));
  return { idle: idle.map((sample) => sample.ms), loaded: loaded.map((sample) => sample.ms), loadedQueueWait, backlog, backlogSeconds };
}

async function turnsUnderBacklog(stack: BenchStack, turns: number, employee: string): Promise<Outcome> {
  const base = stack.servers[0]!;
  await stack.setModel(STREAM);
  const idle: Sample[] = [];
  for (let i = 0; i < SAMPLES; i++) idle.push(await firstToken(base, employee));
  const tokenA = await devLogin(base);
  const started = performance.now();
  await pool(turns, 20, async (i) => {
    const posted = await postJson(`${base}/api/v1/chat`, tokenA, { message: `Backlog question ${i}: how do refunds work?` });
    if (posted.status !== 202) throw new Error(`A's turn answered ${posted.status}: ${JSON.stringify(posted.body)}`);
  });
  const loaded = await Promise.all(Array.from({ length: SAMPLES }, (_, i) => sleep(i * SAMPLE_SPACING_MS).then(() => firstToken(base, employee))));
  await drained(stack, ["tutor-generate"]);
  return outcome(stack, idle, loaded, turns, started);
}

function document(label: string): Blob {
  const text = `${label}\n\nRefunds are processed within five working days of the return reaching the warehouse. ${"Exchanges need the original receipt and the item's tags. ".repeat(20)}`;
  return new Blob([text], { type: "text/plain" });
}

async function uploadAndWait(base: string, token: string, client: pg.Pool, label: string): Promise<Sample> {
  const started = performance.now();
  const id = await uploadOne(base, token, label);
  const jobs = ["extract", "chunk", "embed"].map((stage) => ({ queue: `ingest-${stage}`, id: `${id}-g0-${stage}` }));
  for (;;) {
    const { rows } = await client.query("SELECT status FROM documents WHERE id = $1", [id]);
    if (rows[0]?.status === "COMPLETED") return { ms: performance.now() - started, jobs };
    if (rows[0]?.status === "FAILED") throw new Error(`B's document ${label} failed`);
    await sleep(25);
  }
}

async function uploadOne(base: string, token: string, label: string): Promise<string> {
  const form = new FormData();
  form.append("file", document(label), `${label}.txt`);
  const response = await fetch(`${base}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await response.json()) as { document_id: string };
  if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
  return body.document_id;
}

async function uploadsUnderBacklog(stack: BenchStack, documents: number, admin: string): Promise<Outcome> {
  const base = stack.servers[0]!;
  const client = new pg.Pool({ connectionString: stack.databaseUrl, max: SAMPLES });
  try {
    const idle: Sample[] = [];
    for (let i = 0; i < SAMPLES; i++) idle.push(await uploadAndWait(base, admin, client, `b-idle-${i}`));
    const tokenA = await devLogin(base, "admin@example.com");
    const started = performance.now();
    await pool(documents, 10, (i) => uploadOne(base, tokenA, `a-batch-${i}`));
    const loaded = await Promise.all(Array.from({ length: SAMPLES }, (_, i) => sleep(i * 500).then(() => uploadAndWait(base, admin, client, `b-loaded-${i}`))));
    await drained(stack, ["ingest-extract", "ingest-chunk", "ingest-embed"]);
    return outcome(stack, idle, loaded, documents, started);
  } finally {
    await client.end();
  }
}

function report(label: string, unit: string, outcome: Outcome): string[] {
  const idle = percentile(outcome.idle, 50);
  const row = (name: string, values: number[], ratio = true) => [
    name,
    String(values.length),
    fmt(percentile(values, 50)),
    fmt(Math.max(...values)),
    ratio ? (percentile(values, 50) / idle).toFixed(2) : "",
  ];
  return [
    table(
      ["B's " + label + " (ms)", "n", "p50", "max", "p50 ÷ idle p50"],
      [
        row("idle system", outcome.idle),
        row(`behind A's ${outcome.backlog}`, outcome.loaded),
        row("… of which B's jobs waited in the queues", outcome.loadedQueueWait, false),
      ],
    ),
    "",
    `A's backlog: ${outcome.backlog} ${unit} in ${outcome.backlogSeconds.toFixed(1)} s = ${(outcome.backlog / outcome.backlogSeconds).toFixed(2)} ${unit}/s (B's samples included).`,
  ];
}

export const fairnessModule = {
  name: "fairness",
  title: "9. Fairness between organisations",
  async run(settings: BenchSettings): Promise<string> {
    const stack = await startBenchStack({ env: ENV });
    try {
      const b = await secondOrganisation(stack);
      const turns = await turnsUnderBacklog(stack, settings.fairnessTurns, b.employee);
      const uploads = await uploadsUnderBacklog(stack, settings.fairnessDocuments, b.admin);
      return [
        `One server, one worker, ${Object.entries(ENV)
          .map(([key, value]) => `${key} ${value}`)
          .join(
            ", ",
          )} (16 \`tutor-generate\` slots, 4 per ingestion stage); answers of ${STREAM.tokens} tokens ${STREAM.intervalMs} ms apart (~${(STREAM.tokens * STREAM.intervalMs) / 1000} s).`,
        `Organisation A posts its backlog (20 at a time); B then submits ${SAMPLES} (turns ${SAMPLE_SPACING_MS / 1000} s apart; uploads 0.5 s apart), each timed alone before on the idle system.`,
        "",
        "### Turns (time to first token)",
        "",
        ...report("first token", "turns", turns),
        "",
        "### Uploads (short text documents, upload → COMPLETED)",
        "",
        ...report("upload → COMPLETED", "documents", uploads),
      ].join("\n");
    } finally {
      await stack.stop();
    }
  },
};
