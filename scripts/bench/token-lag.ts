/**
 * Measure 2, token delivery lag: from the bench model writing a token to the socket client
 * receiving it, with N sessions streaming at once at 30 tokens/s. Also CPU per process, Redis
 * commands per delivered token (INFO commandstats deltas) and lost / duplicated turns.
 */
import { devLogin } from "./clients";
import { localClients, spreadClients, type HopReport, type LagClients } from "./lag-clients";
import type { BenchSettings } from "./settings";
import { processTable } from "./report";
import { commandCounts, commandDelta, cpuMeter, startBenchStack, type BenchStack, type ProbeReport } from "./stack";
import { SUMMARY_HEADERS, fmt, percentile, summaryRow, table } from "./stats";

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
  /** Per process: its event-loop delay in the round, and how old tokens were at each hop it saw (stamp-ages.mjs). */
  hops: HopReport[];
  /** How many processes the bench clients ran in (lag-clients.ts). */
  clientProcesses: number;
  /** The probe's full window of every server and worker over the round (waits, commands, statements). */
  probes: Array<{ role: string } & ProbeReport>;
}

/** The rounds of one measurement: by session count, then the longer answers, then the same counts with the clients spread over processes. */
export type LagRounds = LagPoint[] & { longer?: LagPoint; spread?: LagPoint[] };

/** Runs one streaming round on the first `count` open sessions; each starts within one second, like real traffic. */
export async function streamRound(stack: BenchStack, clients: LagClients, count: number, tokens: number): Promise<LagPoint> {
  await stack.setModel({ tokens, intervalMs: 1000 / TOKENS_PER_SECOND });
  const before = await commandCounts(stack.redis);
  await stack.probeWindow();
  const cpu = cpuMeter([...stack.processes, ...clients.children]);
  const started = performance.now();
  const { records, hops: clientHops } = await clients.round(count);
  const seconds = (performance.now() - started) / 1000;
  const processes = cpu.stop();
  const probes = await stack.probeWindow();
  const hops = [...probes.map(({ role, eventLoopDelay, stampAges }) => ({ role, eventLoopDelay, stampAges: stampAges ?? {} })), ...clientHops];
  const redisCommands = commandDelta(before, await commandCounts(stack.redis));
  const lags = records.flatMap((record) => record.tokenLags);
  return {
    sessions: count,
    lags,
    tokensDelivered: lags.length,
    tokensExpected: count * tokens,
    lostTurns: records.filter((record) => record.failed || record.done === undefined).length,
    brokenTurns: records.filter((record) => !record.seqIntact || record.tokens !== tokens).length,
    redisCommands,
    processes,
    seconds,
    hops,
    clientProcesses: clients.processes,
    probes,
  };
}

export async function measureTokenLag(
  stack: BenchStack,
  counts: number[],
  tokens: number,
  token: string,
  baseUrls = stack.servers,
  { longerAnswersAt, spread }: { longerAnswersAt?: number; spread?: { processes: number; counts: number[] } } = {},
): Promise<LagRounds> {
  const points: LagRounds = [];
  await stack.setModel({ tokens: 3, intervalMs: 0 });
  const local = await localClients(baseUrls, token, Math.max(...counts));
  try {
    for (const count of counts) points.push(await streamRound(stack, local, count, tokens));
    if (longerAnswersAt) points.longer = await streamRound(stack, local, longerAnswersAt, tokens * LONGER_ANSWER_FACTOR);
  } finally {
    await local.close();
  }
  if (spread && spread.counts.length > 0) {
    await stack.setModel({ tokens: 3, intervalMs: 0 });
    const spreadOut = await spreadClients(baseUrls, token, Math.max(...spread.counts), spread.processes);
    try {
      points.spread = [];
      for (const count of spread.counts) points.spread.push(await streamRound(stack, spreadOut, count, tokens));
    } finally {
      await spreadOut.close();
    }
  }
  return points;
}

/** The second round at one load point streams answers this many times longer, to split per-token from per-turn Redis work. */
export const LONGER_ANSWER_FACTOR = 4;

const commandsOf = (point: LagPoint) => point.redisCommands.reduce((sum, [, calls]) => sum + calls, 0);

/**
 * Redis commands per token the streaming itself costs, apart from each turn's fixed work (jobs,
 * stage events, cancel checks): the slope between two rounds at the same load whose answers differ
 * only in length.
 */
export function marginalCommands(short: LagPoint, long: LagPoint): { perToken: number; perTurn: number; byCommand: Array<[string, number]> } {
  const extraTokens = Math.max(1, long.tokensDelivered - short.tokensDelivered);
  const perToken = (commandsOf(long) - commandsOf(short)) / extraTokens;
  const perTurn = (commandsOf(short) - perToken * short.tokensDelivered) / Math.max(1, short.sessions);
  const shortBy = new Map(short.redisCommands);
  const byCommand = long.redisCommands
    .map(([name, calls]): [string, number] => [name, (calls - (shortBy.get(name) ?? 0)) / extraTokens])
    .sort((a, b) => b[1] - a[1]);
  return { perToken, perTurn, byCommand };
}

/** The goals next to what this run measured. */
function goals(points: LagRounds): string {
  const lines: string[] = [];
  const at = (sessions: number) => points.find((point) => point.sessions === sessions);
  const verdict = (met: boolean) => (met ? "**met**" : "**missed**");
  const spreadAt = (sessions: number) => points.spread?.find((point) => point.sessions === sessions);
  const lagGoal = (sessions: number, boundMs: number) => {
    const point = at(sessions);
    if (!point) return;
    const p99 = percentile(point.lags, 99);
    const intact = point.lostTurns === 0 && point.brokenTurns === 0;
    const spreadOut = spreadAt(sessions);
    const spreadText = spreadOut
      ? `; with the clients spread over ${spreadOut.clientProcesses} processes ${fmt(percentile(spreadOut.lags, 99))} ms (${spreadOut.lostTurns} lost, ${spreadOut.brokenTurns} broken), ${verdict(percentile(spreadOut.lags, 99) <= boundMs && spreadOut.lostTurns === 0 && spreadOut.brokenTurns === 0)}`
      : "";
    lines.push(
      `- Goal p99 ≤ ${boundMs} ms at ${fmt(sessions)} sessions, nothing lost: ${fmt(p99)} ms with every client in the bench process (${point.lostTurns} lost, ${point.brokenTurns} broken), ${verdict(p99 <= boundMs && intact)}${spreadText}.`,
    );
  };
  lagGoal(200, 15);
  lagGoal(1_000, 50);
  const busiest = points[points.length - 1]!;
  const perToken = busiest.redisCommands.reduce((sum, [, calls]) => sum + calls, 0) / Math.max(1, busiest.tokensDelivered);
  lines.push(
    `- Goal ≤ 1 Redis command per delivered token (${busiest.sessions} sessions, every command the whole pipeline sent, BullMQ's included, answers of ${busiest.tokensExpected / Math.max(1, busiest.sessions)} tokens): ${fmt(perToken, 2)}, ${verdict(perToken <= 1)}.`,
  );
  const long = points.longer;
  const short = long && points.find((point) => point.sessions === long.sessions);
  if (long && short) {
    const { perToken: marginal, perTurn, byCommand } = marginalCommands(short, long);
    const largest = byCommand
      .slice(0, 5)
      .map(([name, calls]) => `${name} ${fmt(calls, 2)}`)
      .join(", ");
    lines.push(
      `- The same goal for the streaming itself (${long.sessions} sessions, answers of ${short.tokensExpected / short.sessions} and ${long.tokensExpected / long.sessions} tokens, lag p99 ${fmt(percentile(long.lags, 99))} ms in the longer round): **${fmt(marginal, 2)} commands per additional token** (${largest}), ${verdict(marginal <= 1)}; the rest is a fixed **${fmt(perTurn, 0)} commands per turn** (BullMQ's job moves and locks, stage events, cancel checks), which an answer of 300 tokens spreads to ${fmt(perTurn / 300 + marginal, 2)} per token.`,
    );
  }
  return lines.join("\n");
}

/** The hops stamp-ages.mjs recognises, in the order a token passes them. */
const HOPS = ["model → worker read", "worker → Redis write", "Redis → server read", "server → socket write", "socket → client read"];

/** How old tokens were at each hop (cumulative from the model's write), then each process's event-loop delay. */
export function hopTable(point: LagPoint): string {
  const rows: Array<Array<string | number>> = [];
  for (const hop of HOPS)
    for (const report of point.hops) {
      const age = report.stampAges[hop];
      if (age) rows.push([hop, report.role, age.count, fmt(age.p50), fmt(age.p90), fmt(age.p99), fmt(age.max)]);
    }
  rows.push([
    "client handler (the lag above)",
    point.clientProcesses > 1 ? `bench clients (all ${point.clientProcesses})` : "bench clients",
    point.lags.length,
    fmt(percentile(point.lags, 50)),
    fmt(percentile(point.lags, 90)),
    fmt(percentile(point.lags, 99)),
    fmt(Math.max(...point.lags)),
  ]);
  const loops = point.hops.map((report) => [
    report.role,
    `${fmt(report.eventLoopDelay.p50)} / ${fmt(report.eventLoopDelay.p99)} / ${fmt(report.eventLoopDelay.max)}`,
  ]);
  return [
    table(["token age at (ms since the model wrote it)", "process", "n", "p50", "p90", "p99", "max"], rows),
    "",
    table(["process", "event-loop delay p50 / p99 / max (ms)"], loops),
  ].join("\n");
}

export function renderTokenLag(points: LagRounds, tokens: number): string {
  const rounds = [...points, ...(points.longer ? [points.longer] : []), ...(points.spread ?? [])];
  const label = (point: LagPoint) =>
    point === points.longer
      ? `${point.sessions} sessions, answers of ${point.tokensExpected / point.sessions} tokens`
      : point.clientProcesses > 1
        ? `${point.sessions} sessions, clients in ${point.clientProcesses} processes`
        : `${point.sessions} sessions`;
  const lagRows = rounds.map((point) => summaryRow(label(point), point.lags));
  const totals = rounds.map((point) => {
    const total = point.redisCommands.reduce((sum, [, calls]) => sum + calls, 0);
    return [
      label(point),
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
  const cpu = rounds
    .map((point) => `**${label(point)}** (${fmt(point.seconds)} s):\n\n${processTable(point.processes)}\n\nWhere the tokens waited:\n\n${hopTable(point)}`)
    .join("\n\n");
  return [
    `Each session streams one answer of ${tokens} tokens at ${TOKENS_PER_SECOND} tokens/s; sessions start spread over one second. Lag = socket client receipt − model write (wall clock, same machine). The rounds "clients in N processes" repeat a load with the socket clients spread over N child processes (lag-clients.ts): one process's event loop parsing every token next to the POSTs is itself a hop, which real clients on their own machines do not share.`,
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

/** Client processes for the spread rounds: two per core, each with a few hundred sockets at most. */
const SPREAD_CLIENT_PROCESSES = 4;

export const tokenLagModule = {
  name: "token-lag",
  title: "2. Token delivery lag",
  async run(settings: BenchSettings): Promise<string> {
    const most = Math.max(...settings.lagSessions);
    // Every session streams at once: the generate queue needs a slot per session.
    const stack = await startBenchStack({ env: { WORKER_CONCURRENCY: String(Math.min(500, Math.max(8, Math.ceil(most / 4)))), BENCH_STAMP_AGES: "1" } });
    try {
      const token = await devLogin(stack.servers[0]!);
      const points = await measureTokenLag(stack, settings.lagSessions, settings.lagTokens, token, stack.servers, {
        longerAnswersAt: settings.lagSessions.includes(200) ? 200 : most,
        spread: { processes: SPREAD_CLIENT_PROCESSES, counts: settings.lagSessions.filter((count) => count >= 200) },
      });
      return renderTokenLag(points, settings.lagTokens);
    } finally {
      await stack.stop();
    }
  },
};
