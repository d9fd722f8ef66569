/**
 * Where a turn's time and work go (issue 24 point 1), on one server and one worker: the hops of
 * a turn one at a time (from the client's stamps of the stage events), then per turn the CPU of
 * every process, the Postgres statements and Redis commands each process sent (probe.mjs) and
 * what Redis executed (INFO commandstats, Lua scripts' own calls included); last, the same at
 * saturation with a CPU profile of server and worker covering only that window, summarised to
 * the hottest functions.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchSession, devLogin, openSessions, timeAt, type TurnRecord } from "./clients";
import type { BenchSettings } from "./settings";
import { commandCounts, commandDelta, cpuMeter, startBenchStack, type BenchStack, type ProbeReport } from "./stack";
import { SUMMARY_HEADERS, fmt, summaryRow, table } from "./stats";

const INSTANT_TOKENS = 20;

interface Window {
  turns: number;
  tokens: number;
  elapsedMs: number;
  records: TurnRecord[];
  probes: Array<{ role: string } & ProbeReport>;
  cpu: Array<{ role: string; corePercent: number; rssMb: number }>;
  redisExecuted: Array<[string, number]>;
  /** Bytes each process read and wrote (files and sockets: /proc/<pid>/io), and Redis's network bytes in and out. */
  io: Map<number, { read: number; written: number }>;
  redisBytes: { in: number; out: number };
}

function ioOf(pid: number): { read: number; written: number } {
  try {
    const text = readFileSync(`/proc/${pid}/io`, "utf8");
    return { read: Number(/^rchar: (\d+)/m.exec(text)?.[1]), written: Number(/^wchar: (\d+)/m.exec(text)?.[1]) };
  } catch {
    return { read: NaN, written: NaN };
  }
}

async function redisNetBytes(stack: BenchStack): Promise<{ in: number; out: number }> {
  const info = await stack.redis.info("stats");
  return { in: Number(/^total_net_input_bytes:(\d+)/m.exec(info)?.[1]), out: Number(/^total_net_output_bytes:(\d+)/m.exec(info)?.[1]) };
}

/** Runs `drive` between two probe windows and Redis snapshots. */
async function measured(stack: BenchStack, drive: () => Promise<TurnRecord[]>, beforeEnd?: () => void): Promise<Window> {
  await stack.probeWindow();
  const before = await commandCounts(stack.redis);
  const bytesBefore = await redisNetBytes(stack);
  const ioBefore = new Map(stack.processes.map((p) => [p.pid, ioOf(p.pid)]));
  const cpu = cpuMeter(stack.processes);
  const started = performance.now();
  const records = await drive();
  const elapsedMs = performance.now() - started;
  const cpuRows = cpu.stop();
  const io = new Map(
    stack.processes.map((p) => {
      const [was, now] = [ioBefore.get(p.pid)!, ioOf(p.pid)];
      return [p.pid, { read: now.read - was.read, written: now.written - was.written }];
    }),
  );
  const bytesAfter = await redisNetBytes(stack);
  const redisExecuted = commandDelta(before, await commandCounts(stack.redis));
  beforeEnd?.();
  const probes = await stack.probeWindow();
  const ok = records.filter((record) => !record.failed);
  return {
    turns: ok.length,
    tokens: ok.reduce((sum, r) => sum + r.tokens, 0),
    elapsedMs,
    records: ok,
    probes,
    cpu: cpuRows,
    redisExecuted,
    io,
    redisBytes: { in: bytesAfter.in - bytesBefore.in, out: bytesAfter.out - bytesBefore.out },
  };
}

const HOPS: Array<[string, string, string]> = [
  ["POST sent → 202 Accepted (auth, idempotency, rate limit, store message, enqueue the turn)", "posted", "accepted"],
  ["202 → classify started (worker pick-up, turn context load, first event on the socket)", "accepted", "classify:started"],
  ["classify (started → completed)", "classify:started", "classify:completed"],
  ["hand-off classify → retrieve started", "classify:completed", "retrieve:started"],
  ["retrieve (started → completed)", "retrieve:started", "retrieve:completed"],
  ["hand-off retrieve → generate started", "retrieve:completed", "generate:started"],
  ["generate started → first token on the socket", "generate:started", "token"],
  ["first token → done on the socket", "token", "done"],
  ["**POST sent → first token**", "posted", "token"],
];

function hopTable(records: TurnRecord[]): string {
  const rows = HOPS.map(([label, from, to]) => {
    const values = records.map((r) => timeAt(r, to) - timeAt(r, from)).filter(Number.isFinite);
    return summaryRow(label, values);
  });
  return table(SUMMARY_HEADERS, rows);
}

function perTurnTable(window: Window, processes: BenchStack["processes"]): string {
  const seconds = window.elapsedMs / 1000;
  const kb = (bytes: number | undefined) => (bytes === undefined ? "–" : bytes / 1024 / window.turns);
  const probeOf = (role: string) => window.probes.find((p) => p.role === role);
  const rows = window.cpu.map((row) => {
    const probe = probeOf(row.role);
    return [
      row.role,
      ((row.corePercent / 100) * window.elapsedMs) / window.turns,
      row.corePercent,
      probe ? probe.query.count / window.turns : "–",
      probe ? Object.values(probe.commands).reduce((sum, n) => sum + n, 0) / window.turns : "–",
      // A postmaster's backends do their own I/O: its row would say nothing.
      ...(() => {
        const pid = processes.find((p) => p.role === row.role && p.role !== "postgres")?.pid;
        const io = pid === undefined ? undefined : window.io.get(pid);
        return [kb(io?.read), kb(io?.written)];
      })(),
    ];
  });
  return [
    `${window.turns} turns in ${fmt(seconds, 1)} s (${fmt(window.turns / seconds, 1)} turns/s), ${fmt(window.tokens / window.turns, 1)} tokens per turn.`,
    "",
    table(
      [
        "process",
        "CPU ms per turn",
        "CPU (% of one core)",
        "pg statements per turn",
        "Redis commands sent per turn",
        "KB read per turn",
        "KB written per turn",
      ],
      rows,
    ),
    "",
    `Redis network traffic per turn: ${fmt(window.redisBytes.in / 1024 / window.turns, 1)} KB in, ${fmt(window.redisBytes.out / 1024 / window.turns, 1)} KB out (INFO stats). KB read/written are /proc/<pid>/io (sockets and files).`,
  ].join("\n");
}

function countsTable(counts: Record<string, number> | Array<[string, number]>, turns: number, top: number, label: string): string {
  const entries = (Array.isArray(counts) ? counts : Object.entries(counts)).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const rows = entries.slice(0, top).map(([name, n]) => [`\`${name.replace(/\|/g, "\\|")}\``, n / turns]);
  rows.push([`**all ${entries.length}**`, total / turns]);
  return table([label, "per turn"], rows);
}

function profileSummaries(dir: string): string {
  const files = readdirSync(dir).filter((file) => file.endsWith(".cpuprofile"));
  return files
    .map((file) => {
      const out = execFileSync(process.execPath, ["scripts/bench/profile-summary.mjs", join(dir, file), "15"], { encoding: "utf8" });
      return `#### ${file.replace(/-\d+-w\d+\.cpuprofile$/, "")}\n\n\`\`\`\n${out.replace(dir + "/", "").trim()}\n\`\`\``;
    })
    .join("\n\n");
}

export async function measureBreakdown(stack: BenchStack, profileDir: string, turns: number, concurrency: number, seconds: number): Promise<string> {
  await stack.setModel({ tokens: INSTANT_TOKENS, intervalMs: 0 });
  const baseUrl = stack.servers[0]!;
  const token = await devLogin(baseUrl);
  const session = await BenchSession.open(baseUrl, token);
  for (let i = 0; i < 5; i++) await session.turn();
  const sequential = await measured(stack, async () => {
    const records: TurnRecord[] = [];
    for (let i = 0; i < turns; i++) records.push(await session.turn());
    return records;
  });
  session.close();

  const sessions = await openSessions(stack.servers, token, concurrency);
  writeFileSync(join(profileDir, "record"), "");
  const saturated = await measured(
    stack,
    async () => {
      const records: TurnRecord[] = [];
      const deadline = performance.now() + seconds * 1000;
      await Promise.all(
        sessions.map(async (s) => {
          while (performance.now() < deadline) records.push(await s.turn());
        }),
      );
      return records;
    },
    () => rmSync(join(profileDir, "record")),
  );
  // The profiles are written as the window ends; give the larger one time to reach the disk.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const s of sessions) s.close();

  const byRole = (window: Window, role: string) => window.probes.find((p) => p.role === role);
  const sections: string[] = [
    `### One turn at a time (${sequential.turns} turns, instant model, ${INSTANT_TOKENS} tokens written at once)`,
    "",
    "Each hop is the gap between two stamps the client took on arrival (the 202, the `stage` events, the first `token`), so a stage's time includes delivering its event to the socket.",
    "",
    hopTable(sequential.records),
    "",
    perTurnTable(sequential, stack.processes),
  ];
  for (const role of ["server", "worker"]) {
    const probe = byRole(sequential, role);
    if (!probe) continue;
    sections.push(
      "",
      `#### ${role}: Postgres statements per turn`,
      "",
      countsTable(probe.statements, sequential.turns, 30, "statement (first 120 characters)"),
    );
    sections.push("", `#### ${role}: Redis commands sent per turn`, "", countsTable(probe.commands, sequential.turns, 20, "command"));
  }
  sections.push(
    "",
    "#### Redis: commands executed per turn (INFO commandstats, Lua scripts' own calls included)",
    "",
    countsTable(sequential.redisExecuted, sequential.turns, 25, "command"),
    "",
    `### At saturation (${concurrency} clients back to back for ${seconds} s, CPU profiler on in server and worker)`,
    "",
    perTurnTable(saturated, stack.processes),
    "",
    table(SUMMARY_HEADERS, [summaryRow("POST sent → first token", saturated.records.map((r) => r.firstToken! - r.posted).filter(Number.isFinite))]),
    "",
    `Redis executed ${fmt(saturated.redisExecuted.reduce((sum, [, n]) => sum + n, 0) / saturated.turns, 1)} commands per turn here.`,
    "",
    profileSummaries(profileDir),
  );
  return sections.join("\n");
}

export const breakdownModule = {
  name: "breakdown",
  title: "Breakdown: where a turn's time and work go",
  async run(settings: BenchSettings): Promise<string> {
    const profileDir = mkdtempSync(join(tmpdir(), "skillnet-bench-profiles-"));
    const stack = await startBenchStack({ env: { BENCH_CPU_PROFILE: profileDir, BENCH_CPU_PROFILE_WINDOWS: "1", WORKER_CONCURRENCY: "32" } });
    try {
      const concurrency = settings.mode === "smoke" ? 4 : 16;
      return await measureBreakdown(stack, profileDir, settings.overheadTurns * 2, concurrency, settings.throughputSeconds * 2);
    } finally {
      await stack.stop();
      rmSync(profileDir, { recursive: true, force: true });
    }
  },
};
