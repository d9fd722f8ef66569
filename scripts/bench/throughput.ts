/**
 * Measure 3, the throughput curve: turns per second with an instant model as closed-loop
 * concurrency rises, until p99 time to first token passes 250 ms; at that step, where the
 * server and worker processes waited (probe.mjs: event-loop delay, pg pool, queries, Redis).
 */
import { devLogin, openSessions, type BenchSession, type TurnRecord } from "./clients";
import { processTable, waitTable } from "./report";
import type { BenchSettings } from "./settings";
import { currentEngine } from "./database";
import { cpuMeter, startBenchStack, type BenchStack, type ProbeReport } from "./stack";
import { percentile, table } from "./stats";

export const TTFT_LIMIT_MS = 250;
const INSTANT_TOKENS = 20;

export interface ThroughputStep {
  concurrency: number;
  turns: number;
  turnsPerSecond: number;
  ttft: number[];
  failed: number;
  probes: Array<{ role: string } & ProbeReport>;
  processes: Array<{ role: string; corePercent: number; rssMb: number }>;
}

/** Every session runs turns back to back for `seconds`. */
export async function closedLoop(stack: BenchStack, sessions: BenchSession[], seconds: number): Promise<ThroughputStep> {
  await stack.probeWindow();
  const cpu = cpuMeter(stack.processes);
  const records: TurnRecord[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    sessions.map(async (session) => {
      while (performance.now() < deadline) records.push(await session.turn());
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const ok = records.filter((record) => !record.failed && record.firstToken !== undefined);
  return {
    concurrency: sessions.length,
    turns: records.length,
    turnsPerSecond: ok.length / elapsed,
    ttft: ok.map((record) => record.firstToken! - record.posted),
    failed: records.length - ok.length,
    processes: cpu.stop(),
    probes: await stack.probeWindow(),
  };
}

export async function measureThroughput(stack: BenchStack, steps: number[], seconds: number): Promise<ThroughputStep[]> {
  await stack.setModel({ tokens: INSTANT_TOKENS, intervalMs: 0 });
  const token = await devLogin(stack.servers[0]!);
  const sessions = await openSessions(stack.servers, token, Math.max(...steps));
  // One throwaway step so JIT and connection pools are warm before the first figure.
  await closedLoop(stack, sessions.slice(0, 2), Math.min(2, seconds));
  const results: ThroughputStep[] = [];
  for (const concurrency of steps) {
    const step = await closedLoop(stack, sessions.slice(0, concurrency), seconds);
    results.push(step);
    if (percentile(step.ttft, 99) > TTFT_LIMIT_MS) break;
  }
  for (const session of sessions) session.close();
  return results;
}

export function renderThroughput(steps: ThroughputStep[], seconds: number): string {
  const knee = steps.find((step) => percentile(step.ttft, 99) > TTFT_LIMIT_MS) ?? steps[steps.length - 1]!;
  const rows = steps.map((step) => [
    String(step.concurrency),
    String(step.turns),
    step.turnsPerSecond,
    percentile(step.ttft, 50),
    percentile(step.ttft, 90),
    percentile(step.ttft, 99),
    String(step.failed),
  ]);
  return [
    `Instant model (${INSTANT_TOKENS} tokens written at once); each client runs turns back to back for ${seconds} s per step. TTFT = POST sent → first token on the socket.`,
    "",
    table(["concurrent clients", "turns", "turns/s", "TTFT p50 (ms)", "p90", "p99", "failed"], rows),
    "",
    `**Where the time goes at ${knee.concurrency} clients** (${percentile(knee.ttft, 99) > TTFT_LIMIT_MS ? `p99 TTFT passed ${TTFT_LIMIT_MS} ms here` : `the last step; p99 TTFT stayed under ${TTFT_LIMIT_MS} ms`}). Pool wait is time to get a Postgres connection from knex's pool; a query's round trip includes ${currentEngine() === "pglite" ? "waiting for PGlite's single backend" : "the server's own queueing for locks and CPU"}:`,
    "",
    waitTable(knee.probes),
    "",
    processTable(knee.processes),
  ].join("\n");
}

export const throughputModule = {
  name: "throughput",
  title: "3. Throughput curve (instant model)",
  async run(settings: BenchSettings): Promise<string> {
    const stack = await startBenchStack({ env: { WORKER_CONCURRENCY: String(Math.min(500, Math.max(8, Math.max(...settings.throughputSteps)))) } });
    try {
      return renderThroughput(await measureThroughput(stack, settings.throughputSteps, settings.throughputSeconds), settings.throughputSeconds);
    } finally {
      await stack.stop();
    }
  },
};
