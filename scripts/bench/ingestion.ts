/**
 * Measure 4, ingestion: pages per second end to end for a batch of real PDF documents
 * (upload → extract → chunk → embed with the offline embeddings → stored), each stage's share of
 * the work (BullMQ job timings), and the ceiling: the raw insert rate of the same chunk rows,
 * read back and written again in batches into the same database.
 */
import { Queue } from "bullmq";
import pg from "pg";
import PDFDocument from "pdfkit";
import { QUEUE_PREFIX } from "../../queues/names";
import { devLogin } from "./clients";
import { processTable } from "./report";
import type { BenchSettings } from "./settings";
import { cpuMeter, startBenchStack, type BenchStack } from "./stack";
import { fmt, sleep, table } from "./stats";

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

type StageTimings = Partial<Record<"extract_ms" | "chunk_ms" | "embed_ms" | "store_ms", number>>;

async function waitIndexed(baseUrl: string, token: string, id: string): Promise<{ status: string; chunks: number; timings: StageTimings }> {
  for (;;) {
    const response = await fetch(`${baseUrl}/api/v1/documents/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { status: string; counts?: { chunks: number }; timings?: StageTimings };
    if (body.status === "COMPLETED" || body.status === "FAILED") return { status: body.status, chunks: body.counts?.chunks ?? 0, timings: body.timings ?? {} };
    await sleep(50);
  }
}

/**
 * The four stages' shares of the documents' own timings (documents.metadata.timings): extraction
 * (with its wait for an extraction thread), chunking, the embedding calls, and the database
 * writes of the embed stage (vectors saved per batch, the swap into document_chunks).
 */
function stageShares(results: Array<{ timings: StageTimings }>): Array<Array<string | number>> {
  const sum = (key: keyof StageTimings) => results.reduce((total, result) => total + (result.timings[key] ?? 0), 0);
  const store = sum("store_ms");
  const stages: Array<[string, number]> = [
    ["extract (PDF → text, incl. waiting for a thread)", sum("extract_ms")],
    ["chunk", sum("chunk_ms")],
    ["embed (model calls)", sum("embed_ms") - store],
    ["insert (vectors saved, chunks published)", store],
  ];
  const total = stages.reduce((all, [, ms]) => all + ms, 0);
  return stages.map(([stage, ms]) => [stage, ms, `${fmt((100 * ms) / Math.max(1, total))} %`, fmt(ms / results.length)]);
}

/** Knobs the bench can turn (BENCH_EXTRACT_THREADS, BENCH_EMBED_BATCH_SIZE, BENCH_WORKER_CONCURRENCY); unset, the product's defaults. */
function ingestionEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.env.BENCH_EXTRACT_THREADS) env.EXTRACT_THREADS = process.env.BENCH_EXTRACT_THREADS;
  if (process.env.BENCH_EMBED_BATCH_SIZE) env.EMBED_BATCH_SIZE = process.env.BENCH_EMBED_BATCH_SIZE;
  if (process.env.BENCH_WORKER_CONCURRENCY) env.WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY;
  return env;
}

/** Work time (processedOn → finishedOn) and queue wait (created → processedOn) per ingestion queue. */
async function stageTimes(stack: BenchStack): Promise<Array<{ queue: string; jobs: number; workMs: number; waitMs: number }>> {
  const rows = [];
  for (const name of ["ingest-extract", "ingest-chunk", "ingest-embed"]) {
    const queue = new Queue(name, { connection: { url: stack.redisUrl }, prefix: QUEUE_PREFIX });
    const jobs = await queue.getJobs(["completed"], 0, 10_000);
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

export const ingestionModule = {
  name: "ingestion",
  title: "4. Ingestion",
  async run(settings: BenchSettings): Promise<string> {
    const env = ingestionEnv();
    const stack = await startBenchStack({ env });
    try {
      const baseUrl = stack.servers[0]!;
      const token = await devLogin(baseUrl, "admin@example.com");
      // BENCH_INGEST_DOCUMENTS / BENCH_INGEST_PAGES: other batch shapes (long documents make several embedding batches).
      const documents = Number(process.env.BENCH_INGEST_DOCUMENTS ?? settings.ingestionDocuments);
      const pages = Number(process.env.BENCH_INGEST_PAGES ?? settings.ingestionPagesPerDocument);
      const files = await Promise.all(Array.from({ length: documents }, (_, i) => makePdf(i, pages)));
      // Small documents first, one per extraction thread at once, so every thread (its PDF reader
      // and tokenizer load on first use, ~1 s each) and the embeddings path are warm.
      const threads = Number(env.EXTRACT_THREADS ?? 1);
      const warmUps = await Promise.all(Array.from({ length: threads }, async (_, i) => upload(baseUrl, token, `warm-up-${i}.pdf`, await makePdf(999 - i, 1))));
      await Promise.all(warmUps.map((id) => waitIndexed(baseUrl, token, id)));
      const before = await stageTimes(stack);
      const cpu = cpuMeter(stack.processes);
      const t0 = performance.now();
      const ids = await Promise.all(files.map((bytes, i) => upload(baseUrl, token, `bench-${i}.pdf`, bytes)));
      const results = await Promise.all(ids.map((id) => waitIndexed(baseUrl, token, id)));
      const seconds = (performance.now() - t0) / 1000;
      const processes = cpu.stop();
      const after = await stageTimes(stack);
      const stages = after.map((stage, i) => ({
        ...stage,
        jobs: stage.jobs - before[i]!.jobs,
        workMs: stage.workMs - before[i]!.workMs,
        waitMs: stage.waitMs - before[i]!.waitMs,
      }));
      const totalWork = stages.reduce((sum, stage) => sum + stage.workMs, 0);
      const chunks = results.reduce((sum, result) => sum + result.chunks, 0);
      const failed = results.filter((result) => result.status !== "COMPLETED").length;
      const ceiling = await rawInsertRate(stack.databaseUrl, ids);
      const totalPages = documents * pages;
      return [
        `${documents} PDF documents of ${pages} pages (≈ 290 words a page) uploaded at once to one server and one worker (${
          Object.keys(env).length
            ? Object.entries(env)
                .map(([key, value]) => `${key} ${value}`)
                .join(", ")
            : "the product's defaults"
        }), offline hashed embeddings of 384 dimensions. ${failed} failed.`,
        "",
        table(
          ["measure", "value"],
          [
            ["pages / s, upload → COMPLETED", fmt(totalPages / seconds)],
            ["chunks / s end to end", fmt(chunks / seconds)],
            ["wall time for the batch (s)", fmt(seconds)],
            ["chunks stored", String(chunks)],
            ["**ceiling:** the same chunk rows inserted again, 100 per INSERT (rows / s)", fmt(ceiling.rows / ceiling.seconds)],
            ["end-to-end chunk rate as a share of the ceiling", `${fmt((100 * chunks) / seconds / (ceiling.rows / ceiling.seconds))} %`],
          ],
        ),
        "",
        "Each stage's share of the documents' own timings (extract / chunk / embed / insert):",
        "",
        table(["stage", "ms, summed over the documents", "share", "ms per document"], stageShares(results)),
        "",
        "Each queue's share of the work (sum of job run times) and the time its jobs waited in the queue:",
        "",
        table(
          ["stage", "jobs", "work (ms, summed)", "share of work", "queue wait (ms, summed)"],
          stages.map((stage) => [stage.queue, String(stage.jobs), stage.workMs, `${fmt((100 * stage.workMs) / Math.max(1, totalWork))} %`, stage.waitMs]),
        ),
        "",
        processTable(processes),
      ].join("\n");
    } finally {
      await stack.stop();
    }
  },
};
