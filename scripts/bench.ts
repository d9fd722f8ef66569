/**
 * `npm run bench`: end-to-end figures on this machine, written to bench/results.md.
 * Runs the real stack (redis-server, PGlite + pgvector, BullMQ workers, Socket.IO) with the
 * scripted model streaming at a fixed token rate, then measures tutor turns and ingestion.
 * Figures are percentiles from one run; compare runs on the same machine only.
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import { api, connect, join, login, recordEvents, upload, waitFor, waitForTurnEnd } from "../test/support/client";
import { makeMarkdown } from "../test/support/document-fixtures";
import { stopStack, useStack } from "../test/support/stack";

// One demo user sends every turn: lift its per-minute limit for the measurement.
process.env.RATE_LIMIT_TUTOR_PER_MINUTE = "1000000";
const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const TOKEN_DELAY_MS = Number(process.env.BENCH_TOKEN_DELAY_MS ?? 10);
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 8);

const pct = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const row = (name: string, values: number[]): string => `| ${name} | ${Math.round(pct(values, 50))} | ${Math.round(pct(values, 95))} | ${Math.round(Math.max(...values))} |`;

const QUESTIONS = [
  "How many days do I have to return an item for a refund?",
  "What is ticket escalation code ZEBRA-7 for?",
  "¿Qué necesito para conducir una carretilla elevadora?",
  "Can I return a gift card?",
  "What is my progress and my deadlines?",
  "hola",
];

/** One turn per question first, so the figures are steady-state rather than JIT and cache warm-up. */
async function warmUp(baseUrl: string): Promise<number> {
  const { token } = await login(baseUrl, "employee@example.com");
  const socket = await connect(baseUrl, token);
  const received = recordEvents(socket);
  const t0 = performance.now();
  for (const message of QUESTIONS) {
    const posted = await api(baseUrl, "POST", "/api/v1/chat", { token, body: { message } });
    await join(socket, { sessionId: posted.body.session_id });
    await waitForTurnEnd(received, posted.body.turn_id, 60_000);
  }
  socket.disconnect();
  return performance.now() - t0;
}

async function benchTurns(baseUrl: string) {
  const { token } = await login(baseUrl, "employee@example.com");
  const accepted: number[] = [];
  const firstToken: number[] = [];
  const done: number[] = [];
  let gaps = 0;
  let next = 0;
  const started = performance.now();
  async function worker(): Promise<void> {
    const socket = await connect(baseUrl, token);
    const received = recordEvents(socket);
    while (next < TURNS) {
      const i = next++;
      const t0 = performance.now();
      const posted = await api(baseUrl, "POST", "/api/v1/chat", { token, body: { message: QUESTIONS[i % QUESTIONS.length] } });
      if (posted.status !== 202) throw new Error(`POST /api/v1/chat answered ${posted.status}: ${JSON.stringify(posted.body)}`);
      accepted.push(performance.now() - t0);
      await join(socket, { sessionId: posted.body.session_id });
      const firstSeen = waitFor(() => received.some((e) => e.payload?.turnId === posted.body.turn_id && e.event === "token"), 60_000, "first token").then(() => firstToken.push(performance.now() - t0));
      const events = await waitForTurnEnd(received, posted.body.turn_id, 60_000);
      await firstSeen;
      done.push(performance.now() - t0);
      const seqs = events.map((e) => e.payload.seq);
      if (seqs.some((seq, k) => seq !== k + 1)) gaps++;
    }
    socket.disconnect();
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { accepted, firstToken, done, gaps, throughput: TURNS / seconds };
}

async function benchIngestion(baseUrl: string) {
  const { token } = await login(baseUrl, "admin@example.com");
  const paragraph = "Store associates must check the receipt, the condition of the goods and the payment method before approving a refund. ";
  const durations: number[] = [];
  let chunks = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: DOCUMENTS }, async (_, i) => {
      const sections = Array.from({ length: 20 }, (_, s) => ({ heading: `Section ${s}`, body: `${paragraph.repeat(12)} doc${i}-${Date.now()}` }));
      const t0 = performance.now();
      const response = await upload(baseUrl, token, { name: `bench-${i}-${Date.now()}.md`, bytes: makeMarkdown(sections) });
      const document = await waitFor(async () => {
        const current = await api(baseUrl, "GET", `/api/v1/documents/${response.body.document_id}`, { token });
        return ["COMPLETED", "FAILED"].includes(current.body.status) ? current.body : undefined;
      }, 300_000, "document indexed");
      durations.push(performance.now() - t0);
      chunks += document.counts.chunks;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { durations, chunks, chunksPerSecond: chunks / seconds };
}

const stack = await useStack();
stack.llm.setTokenDelay(TOKEN_DELAY_MS);
const warmUpMs = await warmUp(stack.baseUrl);
const turns = await benchTurns(stack.baseUrl);
stack.llm.setTokenDelay(0);
const ingestion = await benchIngestion(stack.baseUrl);
const memoryMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
await stopStack();

const report = `# Benchmark results

Run with \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}.
Real redis-server, PGlite + pgvector over the wire protocol, BullMQ workers and the Socket.IO
server in one process; the scripted model streams one token every ${TOKEN_DELAY_MS} ms. One run;
compare runs on the same machine only.

## Tutor turns (${TURNS} turns, ${CONCURRENCY} concurrent clients, mixed questions)

| measure (ms, from POST) | p50 | p95 | max |
|---|---|---|---|
${row("202 Accepted", turns.accepted)}
${row("first token on the socket", turns.firstToken)}
${row("done on the socket", turns.done)}

After a warm-up of one turn per question (${QUESTIONS.length} turns, one at a time, ${Math.round(warmUpMs)} ms in all). Throughput: ${turns.throughput.toFixed(1)} turns/s. Turns whose events had a gap or a repeat in \`seq\`: ${turns.gaps} of ${TURNS}.

## Ingestion (${DOCUMENTS} Markdown documents of 20 sections, uploaded at once)

| measure (ms) | p50 | p95 | max |
|---|---|---|---|
${row("upload → COMPLETED", ingestion.durations)}

${ingestion.chunks} chunks indexed at ${ingestion.chunksPerSecond.toFixed(1)} chunks/s. Resident memory of the benchmark process (server + workers) at the end: ${memoryMb} MB.
`;
writeFileSync("bench/results.md", report);
process.stdout.write(report);
process.exit(0);
