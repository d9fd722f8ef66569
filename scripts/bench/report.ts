/** Tables every module shares: CPU and memory per process, and where each process waited. */
import type { ProbeReport } from "./stack";
import { table } from "./stats";

export function processTable(rows: Array<{ role: string; corePercent: number; rssMb: number }>): string {
  return table(
    ["process", "CPU (% of one core)", "RSS (MB)"],
    rows.map((row) => [row.role, row.corePercent, row.rssMb]),
  );
}

export function waitTable(reports: Array<{ role: string } & ProbeReport>): string {
  return table(
    [
      "process",
      "event-loop delay p50 / p99 / max (ms)",
      "pg pool wait: count, p50 / p99 (ms)",
      "pg query: count, p50 / p99 (ms)",
      "Redis command: count, p50 / p99 (ms)",
    ],
    reports.map((r) => [
      r.role,
      `${r.eventLoopDelay.p50.toFixed(1)} / ${r.eventLoopDelay.p99.toFixed(1)} / ${r.eventLoopDelay.max.toFixed(0)}`,
      `${r.poolWait.count}, ${r.poolWait.p50.toFixed(1)} / ${r.poolWait.p99.toFixed(1)}`,
      `${r.query.count}, ${r.query.p50.toFixed(1)} / ${r.query.p99.toFixed(1)}`,
      `${r.redis.count}, ${r.redis.p50.toFixed(1)} / ${r.redis.p99.toFixed(1)}`,
    ]),
  );
}
