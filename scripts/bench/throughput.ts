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

export async function measureThroughput(stack: BenchStack, steps: number[], seconds: number, afterWarmUp?: () => Promise<void>): Promise<ThroughputStep[]> {
  await stack.setModel({ tokens: INSTANT_TOKENS, intervalMs: 0 });
  const token = await devLogin(stack.servers[0]!);
  const sessions = await openSessions(stack.servers, token, Math.max(...steps));
  // One throwaway step so JIT and connection pools are warm before the first figure.
  await closedLoop(stack, sessions.slice(0, 2), Math.min(2, seconds));
  await afterWarmUp?.();
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

/** Commands served and CPU used so far by each Redis primary (one entry on a single Redis). */
type RedisUsage = Map<string, { commands: number; cpuSeconds: number }>;

async function redisUsage(stack: BenchStack): Promise<RedisUsage> {
  if (stack.cluster) {
    const stats = await stack.cluster.stats();
    return new Map([...stats].map(([port, usage]) => [`primary :${port}`, usage]));
  }
  const info = await stack.redis.info();
  const field = (name: string): number => Number(new RegExp(`^${name}:(\\S+)`, "m").exec(info)?.[1] ?? Number.NaN);
  return new Map([["redis", { commands: field("total_commands_processed"), cpuSeconds: field("used_cpu_sys") + field("used_cpu_user") }]]);
}

interface RedisRun {
  label: string;
  steps: ThroughputStep[];
  /** Per primary: commands and CPU seconds over the measured steps (after warm-up). */
  usage: Array<{ node: string; commands: number; cpuSeconds: number }>;
}

async function runOn(label: string, settings: BenchSettings, redisCluster?: { queueShards: number }): Promise<RedisRun> {
  const concurrency = String(Math.min(500, Math.max(8, Math.max(...settings.throughputSteps))));
  const stack = await startBenchStack({ env: { WORKER_CONCURRENCY: concurrency }, ...(redisCluster ? { redisCluster } : {}) });
  try {
    let before: RedisUsage = new Map();
    const steps = await measureThroughput(stack, settings.throughputSteps, settings.throughputSeconds, async () => {
      before = await redisUsage(stack);
    });
    const after = await redisUsage(stack);
    const usage = [...after].map(([node, { commands, cpuSeconds }]) => ({
      node,
      commands: commands - (before.get(node)?.commands ?? 0),
      cpuSeconds: cpuSeconds - (before.get(node)?.cpuSeconds ?? 0),
    }));
    return { label, steps, usage };
  } finally {
    await stack.stop();
  }
}

/** Each primary's share of the commands and of Redis CPU, and what a turn costs in commands and Redis CPU. */
export function renderRedisShares(runs: RedisRun[]): string {
  const rows = runs.flatMap((run) => {
    const turns = run.steps.reduce((sum, step) => sum + step.turns, 0);
    const commands = run.usage.reduce((sum, u) => sum + u.commands, 0);
    const cpu = run.usage.reduce((sum, u) => sum + u.cpuSeconds, 0);
    return run.usage.map((u) => [
      run.label,
      u.node,
      String(u.commands),
      `${((100 * u.commands) / Math.max(1, commands)).toFixed(0)} %`,
      `${((100 * u.cpuSeconds) / Math.max(1e-9, cpu)).toFixed(0)} %`,
      (commands / Math.max(1, turns)).toFixed(0),
      ((1000 * cpu) / Math.max(1, turns)).toFixed(2),
    ]);
  });
  return [
    "Redis per primary over the measured steps (warm-up excluded): its share of all commands and of all Redis CPU (user + sys), and per turn the commands and Redis CPU ms of the whole deployment. On 2 shared cores the cluster's absolute throughput says little; its spread and per-turn cost do.",
    "",
    table(["Redis", "node", "commands", "share of commands", "share of CPU", "commands / turn", "Redis CPU ms / turn"], rows),
  ].join("\n");
}

export const throughputModule = {
  name: "throughput",
  title: "3. Throughput curve (instant model)",
  async run(settings: BenchSettings): Promise<string> {
    // The same measure on one Redis and on a 3-primary cluster (QUEUE_SHARDS=6), one after the other in this run.
    const single = await runOn("one Redis", settings);
    const cluster = await runOn("cluster, 3 shards", settings, { queueShards: 6 });
    return [
      renderThroughput(single.steps, settings.throughputSeconds),
      "",
      "On a Redis Cluster of 3 primaries + 3 replicas (QUEUE_SHARDS=6):",
      "",
      renderThroughput(cluster.steps, settings.throughputSeconds),
      "",
      renderRedisShares([single, cluster]),
    ].join("\n");
  },
};
