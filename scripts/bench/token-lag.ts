/**
 * Measure 2, token delivery lag: from the bench model writing a token to the socket client
 * receiving it, with N sessions streaming at once at 30 tokens/s. Also CPU per process, Redis
 * commands per delivered token (INFO commandstats deltas) and lost / duplicated turns.
 */
import { devLogin, openSessions, type BenchSession, type TurnRecord } from "./clients";
import type { BenchSettings } from "./settings";
import { processTable } from "./report";
import { commandCounts, commandDelta, cpuMeter, startBenchStack, type BenchStack } from "./stack";
import { SUMMARY_HEADERS, fmt, percentile, sleep, summaryRow, table } from "./stats";

export const TOKENS_PER_SECOND = 30;

export interface LagPoint {
  sessions: number;
  lags: number[];
  tokensDelivered: number;
  tokensExpected: number;
  lostTurns: number;
  brokenTurns: number;
  redisCommands: Array<[string, number]>;
  processes: Array<{ role: string; corePercent: number; rssMb: number }>;
  seconds: number;
}

/** Runs one streaming round on already-open sessions; each starts within one second, like real traffic. */
export async function streamRound(stack: BenchStack, sessions: BenchSession[], tokens: number): Promise<LagPoint> {
  await stack.setModel({ tokens, intervalMs: 1000 / TOKENS_PER_SECOND });
  const before = await commandCounts(stack.redis);
  const cpu = cpuMeter(stack.processes);
  const started = performance.now();
  const records: TurnRecord[] = await Promise.all(
    sessions.map(async (session, index) => {
      await sleep((index / sessions.length) * 1000);
      return session.turn().catch(
        (error: unknown): TurnRecord => ({
          turnId: "",
          posted: 0,
          accepted: 0,
          stages: {},
          tokenLags: [],
          tokens: 0,
          seqIntact: false,
          failed: String(error),
        }),
      );
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const processes = cpu.stop();
  const redisCommands = commandDelta(before, await commandCounts(stack.redis));
  const lags = records.flatMap((record) => record.tokenLags);
  return {
    sessions: sessions.length,
    lags,
    tokensDelivered: lags.length,
    tokensExpected: sessions.length * tokens,
    lostTurns: records.filter((record) => record.failed || record.done === undefined).length,
    brokenTurns: records.filter((record) => !record.seqIntact || record.tokens !== tokens).length,
    redisCommands,
    processes,
    seconds,
  };
}

export async function measureTokenLag(stack: BenchStack, counts: number[], tokens: number, token: string, baseUrls = stack.servers): Promise<LagPoint[]> {
  const points: LagPoint[] = [];
  await stack.setModel({ tokens: 3, intervalMs: 0 });
  const sessions = await openSessions(baseUrls, token, Math.max(...counts));
  for (const count of counts) points.push(await streamRound(stack, sessions.slice(0, count), tokens));
  for (const session of sessions) session.close();
  return points;
}

/** The goals next to what this run measured. */
function goals(points: LagPoint[]): string {
  const lines: string[] = [];
  const at = (sessions: number) => points.find((point) => point.sessions === sessions);
  const verdict = (met: boolean) => (met ? "**met**" : "**missed**");
  const p200 = at(200);
  if (p200) lines.push(`- Goal p99 ≤ 15 ms at 200 sessions: ${fmt(percentile(p200.lags, 99))} ms, ${verdict(percentile(p200.lags, 99) <= 15)}.`);
  const p1000 = at(1_000);
  if (p1000)
    lines.push(
      `- Goal p99 ≤ 150 ms at 1,000 sessions with no lost or duplicated turn: ${fmt(percentile(p1000.lags, 99))} ms, ${p1000.lostTurns} lost, ${p1000.brokenTurns} broken, ${verdict(percentile(p1000.lags, 99) <= 150 && p1000.lostTurns === 0 && p1000.brokenTurns === 0)}.`,
    );
  const busiest = points[points.length - 1]!;
  const perToken = busiest.redisCommands.reduce((sum, [, calls]) => sum + calls, 0) / Math.max(1, busiest.tokensDelivered);
  lines.push(
    `- Goal ≤ 1 Redis command per delivered token (${busiest.sessions} sessions, every command the whole pipeline sent, BullMQ's included): ${fmt(perToken, 2)}, ${verdict(perToken <= 1)}.`,
  );
  return lines.join("\n");
}

export function renderTokenLag(points: LagPoint[], tokens: number): string {
  const lagRows = points.map((point) => summaryRow(`${point.sessions} sessions`, point.lags));
  const totals = points.map((point) => {
    const total = point.redisCommands.reduce((sum, [, calls]) => sum + calls, 0);
    return [
      `${point.sessions}`,
      `${point.tokensDelivered} / ${point.tokensExpected}`,
      `${point.lostTurns}`,
      `${point.brokenTurns}`,
      fmt(total / Math.max(1, point.tokensDelivered), 2),
      point.redisCommands
        .slice(0, 6)
        .map(([name, calls]) => `${name} ${fmt(calls / Math.max(1, point.tokensDelivered), 2)}`)
        .join(", "),
    ];
  });
  const cpu = points.map((point) => `**${point.sessions} sessions** (${fmt(point.seconds)} s):\n\n${processTable(point.processes)}`).join("\n\n");
  return [
    `Each session streams one answer of ${tokens} tokens at ${TOKENS_PER_SECOND} tokens/s; sessions start spread over one second. Lag = socket client receipt − model write (wall clock, same machine).`,
    "",
    table(SUMMARY_HEADERS, lagRows),
    "",
    table(
      [
        "sessions",
        "tokens delivered / expected",
        "lost turns",
        "turns with a gap, repeat or missing token",
        "Redis commands per delivered token",
        "per token, by command (incl. those run inside Lua)",
      ],
      totals,
    ),
    "",
    goals(points),
    "",
    cpu,
  ].join("\n");
}

export const tokenLagModule = {
  name: "token-lag",
  title: "2. Token delivery lag",
  async run(settings: BenchSettings): Promise<string> {
    const most = Math.max(...settings.lagSessions);
    // Every session streams at once: the generate queue needs a slot per session.
    const stack = await startBenchStack({ env: { WORKER_CONCURRENCY: String(Math.min(500, Math.max(8, Math.ceil(most / 4)))) } });
    try {
      const token = await devLogin(stack.servers[0]!);
      const points = await measureTokenLag(stack, settings.lagSessions, settings.lagTokens, token);
      return renderTokenLag(points, settings.lagTokens);
    } finally {
      await stack.stop();
    }
  },
};
