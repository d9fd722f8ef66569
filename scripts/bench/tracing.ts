/**
 * What tracing costs: the same closed loop of tutor turns (instant model, 20 tokens) on a stack
 * with tracing off (no OTLP endpoint: the preload loads nothing) and on (every process exporting
 * to a local OTLP/HTTP sink that accepts and counts what it is sent), one run each, in that order.
 *
 *   node --import tsx scripts/bench/tracing.ts [--concurrency 8] [--seconds 20] [--out bench/results-tracing.md]
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { devLogin, openSessions } from "./clients";
import { startBenchStack } from "./stack";
import { percentile, table } from "./stats";
import { closedLoop, type ThroughputStep } from "./throughput";

const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "8" },
    seconds: { type: "string", default: "20" },
    out: { type: "string", default: "bench/results-tracing.md" },
  },
});
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);

/** An OTLP/HTTP endpoint that answers every export with success and counts requests and bytes. */
async function startSink(): Promise<{ url: string; requests: number; bytes: number; close(): void }> {
  const sink = { url: "", requests: 0, bytes: 0, close: () => undefined as void };
  const server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (sink.bytes += chunk.length));
    request.on("end", () => {
      sink.requests += 1;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sink.close = () => void server.close();
  return sink;
}

async function run(env: Record<string, string>): Promise<ThroughputStep> {
  const stack = await startBenchStack({ env });
  try {
    await stack.setModel({ tokens: 20, intervalMs: 0 });
    const token = await devLogin(stack.servers[0]!);
    const sessions = await openSessions(stack.servers, token, concurrency);
    await closedLoop(stack, sessions.slice(0, 2), 3); // warm-up: JIT, pools
    const step = await closedLoop(stack, sessions, seconds);
    for (const session of sessions) session.close();
    return step;
  } finally {
    await stack.stop();
  }
}

const loadBefore = loadavg()
  .map((value) => value.toFixed(2))
  .join(" ");
const off = await run({});
const sink = await startSink();
const on = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
sink.close();
const loadAfter = loadavg()
  .map((value) => value.toFixed(2))
  .join(" ");

const row = (name: string, step: ThroughputStep): string[] => [
  name,
  String(step.turns),
  step.turnsPerSecond.toFixed(1),
  percentile(step.ttft, 50).toFixed(1),
  percentile(step.ttft, 95).toFixed(1),
  percentile(step.ttft, 99).toFixed(1),
  String(step.failed),
];
const report = `# What tracing costs (issue 36)

One run each, tracing off then on, ${new Date().toISOString().slice(0, 10)}.
Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version};
**shared with 4 other engineers' sessions while it ran** (load average before ${loadBefore}, after ${loadAfter}), so the
figures are noisy: read the difference between the two rows, not the absolute numbers.
Settings: the bench stack (scripts/bench/stack.ts: one server, one worker, PostgreSQL server, Redis, the bench's instant
model with 20 tokens), ${concurrency} sessions asking back to back for ${seconds} s after a 3 s warm-up (closed loop).
"On" sets OTEL_EXPORTER_OTLP_ENDPOINT for the server and the worker, which export every span (no sampling) over
OTLP/HTTP protobuf to a local sink (${sink.requests} export requests, ${(sink.bytes / 2 ** 20).toFixed(1)} MiB received).

${table(["tracing", "turns", "turns/s", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms", "failed"], [row("off", off), row("on", on)])}

Reproduce: \`node --import tsx scripts/bench/tracing.ts --concurrency ${concurrency} --seconds ${seconds}\`.
`;
writeFileSync(values.out!, report);
process.stdout.write(report);
process.exit(0);
