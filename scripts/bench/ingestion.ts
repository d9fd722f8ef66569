/**
 * Measure 4, ingestion: pages per second end to end (upload → COMPLETED) for two batch shapes of
 * real PDF documents, short ones (the per-document costs show) and long ones (the per-page costs
 * show), each uploaded in a few rounds on the same warm worker; each stage's share of the work
 * with the extraction thread's wait told apart from its work; the worker's statements and
 * commands per document; the first document after the worker started (cold threads); and the
 * ceiling: the raw insert rate of the same chunk rows, written again in batches.
 *
 * Completion is heard the way the admin console hears it, over the uploader's socket
 * (`document_status`), not by polling: ten documents polled every 50 ms were 200 requests a
 * second to the server and Postgres, the same two cores the worker reads on.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Queue } from "bullmq";
import pg from "pg";
import PDFDocument from "pdfkit";
import type { Socket } from "socket.io-client";
import { QUEUE_PREFIX } from "../../queues/names";
import { connectSocket, devLogin } from "./clients";
import { processTable } from "./report";
import type { BenchSettings } from "./settings";
import { cpuMeter, startBenchStack, type BenchStack } from "./stack";
import { fmt, percentile, sleep, table } from "./stats";

const WORDS =
  "refund receipt warehouse forklift safety customer escalation policy manager approval inventory shipment return exchange warranty training schedule shift badge incident report store associate payment card cash register discount voucher complaint survey".split(
    " ",
  );

function pageText(doc: number, page: number): string {
  let seed = doc * 7919 + page * 104729;
  const word = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % WORDS.length]!;
  const sentences = Array.from({ length: 18 }, () => `${Array.from({ length: 16 }, word).join(" ")}.`);
  return `${sentences.slice(0, 9).join(" ")}\n\n${sentences.slice(9).join(" ")}`;
}

async function makePdf(doc: number, pages: number): Promise<Buffer> {
  const pdf = new PDFDocument({ autoFirstPage: false, info: { Title: `Bench manual ${doc}` } });
  const parts: Buffer[] = [];
  pdf.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve, reject) => {
    pdf.on("end", () => resolve());
    pdf.on("error", reject);
  });
  for (let page = 0; page < pages; page++) {
    pdf.addPage();
    pdf
      .fontSize(18)
      .text(`Section ${page + 1}`)
      .moveDown();
    for (const paragraph of pageText(doc, page).split("\n\n")) pdf.fontSize(10).text(paragraph).moveDown();
  }
  pdf.end();
  await finished;
  return Buffer.concat(parts);
}

async function upload(baseUrl: string, token: string, name: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), name);
  const response = await fetch(`${baseUrl}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await response.json()) as { document_id: string };
  if (response.status !== 202 && response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
  return body.document_id;
}

type StageTimings = Partial<Record<"extract_ms" | "extract_wait_ms" | "chunk_ms" | "chunk_wait_ms" | "embed_ms" | "store_ms", number>>;
interface Indexed {
  status: string;
  chunks: number;
  timings: StageTimings;
}

async function readDocument(baseUrl: string, token: string, id: string): Promise<Indexed & { final: boolean }> {
  const response = await fetch(`${baseUrl}/api/v1/documents/${id}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { status: string; counts?: { chunks: number }; timings?: StageTimings };
  return { status: body.status, chunks: body.counts?.chunks ?? 0, timings: body.timings ?? {}, final: body.status === "COMPLETED" || body.status === "FAILED" };
}

/**
 * Final statuses as the uploader's socket announces them. Statuses are fire-and-forget (a missed
 * one is read again with the document), so a document not heard of within a second is read.
 */
class CompletionListener {
  private readonly finished = new Map<string, number>();
  private readonly waiting = new Map<string, () => void>();

  constructor(socket: Socket) {
    socket.on("document_status", (event: { documentId: string; status: string }) => {
      if (event.status !== "COMPLETED" && event.status !== "FAILED") return;
      this.finished.set(event.documentId, performance.now());
      this.waiting.get(event.documentId)?.();
    });
  }

  /** When the document reached a final status (performance.now()). */
  async finishedAt(baseUrl: string, token: string, id: string): Promise<number> {
    for (;;) {
      const heard = this.finished.get(id);
      if (heard !== undefined) return heard;
      const woken = new Promise<void>((resolve) => this.waiting.set(id, resolve));
      await Promise.race([woken, sleep(1000)]);
      this.waiting.delete(id);
      if (!this.finished.has(id) && (await readDocument(baseUrl, token, id)).final) this.finished.set(id, performance.now());
    }
  }
}

/** Knobs the bench can turn (BENCH_EXTRACT_THREADS, BENCH_EMBED_BATCH_SIZE, BENCH_WORKER_CONCURRENCY); unset, the product's defaults. */
function ingestionEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.env.BENCH_EXTRACT_THREADS) env.EXTRACT_THREADS = process.env.BENCH_EXTRACT_THREADS;
  if (process.env.BENCH_EMBED_BATCH_SIZE) env.EMBED_BATCH_SIZE = process.env.BENCH_EMBED_BATCH_SIZE;
  if (process.env.BENCH_WORKER_CONCURRENCY) env.WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY;
  return env;
}

const INGEST_QUEUES = ["ingest-extract", "ingest-chunk", "ingest-embed"] as const;
type QueueTimes = { queue: string; jobs: number; workMs: number; waitMs: number };

/** Work time (processedOn → finishedOn) and queue wait (created → processedOn) per ingestion queue, over the given documents' jobs. */
async function stageTimes(stack: BenchStack, documentIds: Set<string>): Promise<QueueTimes[]> {
  const rows = [];
  for (const name of INGEST_QUEUES) {
    const queue = new Queue(name, { connection: { url: stack.redisUrl }, prefix: QUEUE_PREFIX });
    const jobs = (await queue.getJobs(["completed"], 0, 10_000)).filter((job) => documentIds.has(job.data?.documentId));
    await queue.close();
    rows.push({
      queue: name,
      jobs: jobs.length,
      workMs: jobs.reduce((sum, job) => sum + ((job.finishedOn ?? 0) - (job.processedOn ?? 0)), 0),
      waitMs: jobs.reduce((sum, job) => sum + ((job.processedOn ?? 0) - job.timestamp), 0),
    });
  }
  return rows;
}

/** The same chunk rows, read back and inserted again 100 per statement: the database's ceiling for this work. */
async function rawInsertRate(databaseUrl: string, documentIds: string[]): Promise<{ rows: number; seconds: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT org_id, document_id, position, content, metadata, token_count, embedding::text AS embedding FROM document_chunks WHERE document_id = ANY($1::uuid[])",
      [documentIds],
    );
    const t0 = performance.now();
    for (let start = 0; start < rows.length; start += 100) {
      const batch = rows.slice(start, start + 100);
      const params: unknown[] = [];
      const values = batch.map((row) => {
        params.push(row.org_id, row.document_id, row.position + 1_000_000, row.content, row.metadata, row.token_count, row.embedding);
        const n = params.length;
        return `($${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n}::vector)`;
      });
      await client.query(
        `INSERT INTO document_chunks (org_id, document_id, position, content, metadata, token_count, embedding) VALUES ${values.join(",")}`,
        params,
      );
    }
    const seconds = (performance.now() - t0) / 1000;
    await client.query("DELETE FROM document_chunks WHERE document_id = ANY($1::uuid[]) AND position >= 1000000", [documentIds]);
    return { rows: rows.length, seconds };
  } finally {
    await client.end();
  }
}

/** CPU ms per thread (tid → ms) of a process, from /proc (Linux); empty elsewhere. */
function threadCpu(pid: number): Map<number, number> {
  const cpu = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
  } catch {
    // not Linux, or the process is gone: no split
  }
  return cpu;
}

/**
 * The worker's CPU over a round split by thread: its event loop (the thread whose id is the
 * process's), the busiest `threads` others (the extraction threads: nothing else in the worker
 * runs JavaScript for long), and the rest (GC helpers, libuv).
 */
function workerThreadSplit(pid: number, before: Map<number, number>, threads: number): { mainMs: number; extractionMs: number; otherMs: number } {
  const after = threadCpu(pid);
  const deltas = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
  const main = deltas.find((delta) => delta.tid === pid)?.ms ?? 0;
  const others = deltas.filter((delta) => delta.tid !== pid).sort((a, b) => b.ms - a.ms);
  const extraction = others.slice(0, threads).reduce((sum, delta) => sum + delta.ms, 0);
  const rest = others.slice(threads).reduce((sum, delta) => sum + delta.ms, 0);
  return { mainMs: main, extractionMs: extraction, otherMs: rest };
}

interface Shape {
  label: string;
  documents: number;
  pages: number;
}

interface Round {
  seconds: number;
  pagesPerSecond: number;
  ids: string[];
  results: Indexed[];
  /** The worker's Postgres statements and Redis commands in the round (its probe). */
  statements: number;
  commands: number;
  processes: Array<{ role: string; corePercent: number; rssMb: number }>;
  worker: { mainMs: number; extractionMs: number; otherMs: number };
}

interface Session {
  stack: BenchStack;
  threads: number;
  baseUrl: string;
  token: string;
  listener: CompletionListener;
}

/** Uploads the batch at once and waits for every document to be final; the clock runs from the first upload to the last final status. */
async function runRound(session: Session, shape: Shape, round: number): Promise<Round> {
  const { stack, baseUrl, token, listener } = session;
  const files = await Promise.all(Array.from({ length: shape.documents }, (_, i) => makePdf(round * 100 + i, shape.pages)));
  await stack.probeWindow();
  const workerPid = stack.processes.find((p) => p.role.startsWith("worker"))!.pid;
  const threadsBefore = threadCpu(workerPid);
  const cpu = cpuMeter(stack.processes);
  const t0 = performance.now();
  const ids = await Promise.all(files.map((bytes, i) => upload(baseUrl, token, `bench-${shape.label}-${round}-${i}.pdf`, bytes)));
  const ends = await Promise.all(ids.map((id) => listener.finishedAt(baseUrl, token, id)));
  const seconds = (Math.max(...ends) - t0) / 1000;
  const processes = cpu.stop();
  const split = workerThreadSplit(workerPid, threadsBefore, session.threads);
  const worker = (await stack.probeWindow()).find((probe) => probe.role.startsWith("worker"));
  const results = await Promise.all(ids.map((id) => readDocument(baseUrl, token, id)));
  return {
    seconds,
    pagesPerSecond: (shape.documents * shape.pages) / seconds,
    ids,
    results,
    statements: worker?.query.count ?? 0,
    commands: worker?.redis.count ?? 0,
    processes,
    worker: split,
  };
}

/**
 * The stages' shares of the documents' own timings (documents.metadata.timings): extraction and
 * chunking each split into waiting for an extraction thread and the rest (reading in the thread,
 * the stage's own reads and writes), the embedding calls, and the embed stage's database writes.
 */
function stageShares(results: Indexed[]): Array<Array<string | number>> {
  const sum = (key: keyof StageTimings) => results.reduce((total, result) => total + (result.timings[key] ?? 0), 0);
  const store = sum("store_ms");
  const stages: Array<[string, number]> = [
    ["extract: waiting for a thread", sum("extract_wait_ms")],
    ["extract: PDF → text (thread) and its reads and writes", sum("extract_ms") - sum("extract_wait_ms")],
    ["chunk: waiting for a thread", sum("chunk_wait_ms")],
    ["chunk: text → chunks (thread) and its reads and writes", sum("chunk_ms") - sum("chunk_wait_ms")],
    ["embed (model calls)", sum("embed_ms") - store],
    ["insert (vectors saved, chunks published)", store],
  ];
  const total = stages.reduce((all, [, ms]) => all + ms, 0);
  return stages.map(([stage, ms]) => [stage, ms, `${fmt((100 * ms) / Math.max(1, total))} %`, fmt(ms / Math.max(1, results.length))]);
}

/** How long the worker has been up when the first document arrives. */
const FIRST_UPLOAD_AFTER_MS = 3000;

/** CPU ms per page and busy share of the wall time: the worker's threads, then each other process. */
function cpuPerPage(measured: Round[], shape: Shape): Array<Array<string | number>> {
  const pages = shape.documents * shape.pages * measured.length;
  const wallMs = measured.reduce((sum, round) => sum + round.seconds * 1000, 0);
  const row = (label: string, ms: number): Array<string | number> => [label, fmt(ms / pages), `${fmt((100 * ms) / wallMs)} %`];
  const sum = (pick: (round: Round) => number) => measured.reduce((total, round) => total + pick(round), 0);
  const roles = measured[0]!.processes.map((process) => process.role).filter((role) => !role.startsWith("worker"));
  return [
    row(
      "worker: extraction thread(s)",
      sum((round) => round.worker.extractionMs),
    ),
    row(
      "worker: event loop",
      sum((round) => round.worker.mainMs),
    ),
    row(
      "worker: other threads (GC, libuv)",
      sum((round) => round.worker.otherMs),
    ),
    ...roles.map((role) =>
      row(
        role,
        sum((round) => ((round.processes.find((process) => process.role === role)?.corePercent ?? 0) * round.seconds * 1000) / 100),
      ),
    ),
  ];
}

const median = (values: number[]): number => percentile(values, 50);

async function reportShape(session: Session, shape: Shape, rounds: number): Promise<string> {
  const measured: Round[] = [];
  for (let round = 0; round < rounds; round++) measured.push(await runRound(session, shape, round));
  const ids = measured.flatMap((round) => round.ids);
  const results = measured.flatMap((round) => round.results);
  const failed = results.filter((result) => result.status !== "COMPLETED").length;
  const chunks = results.reduce((sum, result) => sum + result.chunks, 0);
  const queues = await stageTimes(session.stack, new Set(ids));
  const totalWork = queues.reduce((sum, stage) => sum + stage.workMs, 0);
  const last = measured.at(-1)!;
  const ceiling = await rawInsertRate(session.stack.databaseUrl, last.ids);
  const documents = shape.documents * rounds;
  const seconds = measured.reduce((sum, round) => sum + round.seconds, 0);
  return [
    `### ${shape.label}: ${shape.documents} PDF documents of ${shape.pages} pages, ${rounds} rounds`,
    "",
    `Each round uploads its ${shape.documents} documents at once and ends when the last is COMPLETED. ${failed} of ${documents} failed.`,
    "",
    table(
      ["measure", "value"],
      [
        ["**pages / s, upload → COMPLETED, median of the rounds**", fmt(median(measured.map((round) => round.pagesPerSecond)))],
        ["pages / s of each round", measured.map((round) => fmt(round.pagesPerSecond)).join(", ")],
        ["wall time per round, median (s)", fmt(median(measured.map((round) => round.seconds)))],
        ["chunks / s end to end, all rounds", fmt(chunks / seconds)],
        ["worker Postgres statements per document (median round)", fmt(median(measured.map((round) => round.statements / shape.documents)))],
        ["worker Redis commands per document (median round)", fmt(median(measured.map((round) => round.commands / shape.documents)))],
        ["**ceiling:** the last round's chunk rows inserted again, 100 per INSERT (rows / s)", fmt(ceiling.rows / ceiling.seconds)],
      ],
    ),
    "",
    "Each stage's share of the documents' own timings, all rounds:",
    "",
    table(["stage", "ms, summed over the documents", "share", "ms per document"], stageShares(results)),
    "",
    "Each queue's jobs, all rounds: work (sum of job run times) and the time they waited in the queue (the hand-offs):",
    "",
    table(
      ["queue", "jobs", "work (ms, summed)", "share of work", "queue wait (ms, summed)", "queue wait per job (ms)"],
      queues.map((stage) => [
        stage.queue,
        String(stage.jobs),
        stage.workMs,
        `${fmt((100 * stage.workMs) / Math.max(1, totalWork))} %`,
        stage.waitMs,
        fmt(stage.waitMs / Math.max(1, stage.jobs)),
      ]),
    ),
    "",
    "CPU per page, all rounds (ms of CPU per page ingested; the share of the wall time that thread or process was busy):",
    "",
    table(["where", "CPU ms per page", "busy (% of the wall time)"], cpuPerPage(measured, shape)),
    "",
    "CPU per process over the last round:",
    "",
    processTable(last.processes),
  ].join("\n");
}

export const ingestionModule = {
  name: "ingestion",
  title: "4. Ingestion",
  async run(settings: BenchSettings): Promise<string> {
    const env = ingestionEnv();
    const stack = await startBenchStack({ env });
    let socket: Socket | undefined;
    try {
      const baseUrl = stack.servers[0]!;
      const token = await devLogin(baseUrl, "admin@example.com");
      socket = await connectSocket(baseUrl, token);
      const threads = Number(env.EXTRACT_THREADS ?? 1);
      const session: Session = { stack, threads, baseUrl, token, listener: new CompletionListener(socket) };
      // BENCH_INGEST_DOCUMENTS / BENCH_INGEST_PAGES / BENCH_INGEST_ROUNDS: another short batch, or more rounds.
      const short: Shape = {
        label: "Short documents",
        documents: Number(process.env.BENCH_INGEST_DOCUMENTS ?? settings.ingestionDocuments),
        pages: Number(process.env.BENCH_INGEST_PAGES ?? settings.ingestionPagesPerDocument),
      };
      const long: Shape = { label: "Long documents", ...settings.ingestionLong };
      const rounds = Number(process.env.BENCH_INGEST_ROUNDS ?? settings.ingestionRounds);

      // One one-page document per extraction thread, at once, on a worker up for a few seconds (as
      // a worker is when uploads come): a thread that has not read a PDF yet loads its reader and
      // tokenizer first, so this is what the first uploads after a worker starts wait for.
      await sleep(FIRST_UPLOAD_AFTER_MS);
      const warmStart = performance.now();
      const warmUps = await Promise.all(Array.from({ length: threads }, async (_, i) => upload(baseUrl, token, `warm-up-${i}.pdf`, await makePdf(999 - i, 1))));
      const warmEnds = await Promise.all(warmUps.map((id) => session.listener.finishedAt(baseUrl, token, id)));
      const firstDocumentMs = Math.max(...warmEnds) - warmStart;

      const sections = [];
      for (const shape of [short, long]) sections.push(await reportShape(session, shape, rounds));
      return [
        `PDF documents (≈ 290 words a page) uploaded to one server and one worker (${
          Object.keys(env).length
            ? Object.entries(env)
                .map(([key, value]) => `${key} ${value}`)
                .join(", ")
            : "the product's defaults"
        }), offline hashed embeddings of 384 dimensions; completion heard on the uploader's socket.`,
        "",
        `First ${threads === 1 ? "document" : `${threads} documents`} (one page${threads === 1 ? "" : " each"}) on a worker up for ${FIRST_UPLOAD_AFTER_MS / 1000} s: ${fmt(firstDocumentMs)} ms upload → COMPLETED.`,
        "",
        ...sections.flatMap((section) => [section, ""]),
      ].join("\n");
    } finally {
      socket?.disconnect();
      await stack.stop();
    }
  },
};
