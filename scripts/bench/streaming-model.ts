/**
 * Measure 8, the product as users run it with a model that streams at a real pace: `npm start`'s
 * launcher (launched-product.ts: its embedded PostgreSQL server and Redis, its processes and
 * defaults, JSON logs at the default level) against the bench model with a time to first token,
 * a token rate and an answer length. Three rounds:
 *
 * 1. one employee's conversation of 20+ turns: what the product adds to the first token of each
 *    continuing turn, beyond the model's own wait, and where that time goes;
 * 2. 32 conversations at once, as in the issue that found 700 ms of queueing at 16 slots;
 * 3. the load goal: new turns arriving at a fixed rate, each streaming a long answer, until
 *    hundreds stream at once — what is lost, token lag, first token, CPU per streamed token per
 *    process, Redis commands per token, event-loop delays.
 *
 * Added to the first token = (first token on the client − POST sent) − (the model's first write −
 * its request's arrival): the model stamps both into its first token (model-server.ts).
 */
import { spawnUntilReady } from "../../launcher/embedded/child-process";
import { BenchSession, devLogin, openSessions, timeAt, type TurnRecord } from "./clients";
import { cpuByRole, launchProduct, type LaunchedProduct } from "./launched-product";
import type { BenchSettings } from "./settings";
import { commandCounts, commandDelta, processUsage } from "./stack";
import { waitTable } from "./report";
import { SUMMARY_HEADERS, fmt, percentile, sleep, summaryRow, table, wallClockMs } from "./stats";
import { pauseStampAges, takeStampAges, watchStampAges } from "./stamp-ages.mjs";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface StreamingSettings {
  /** Round 1: turns of one conversation, and its model (a fast one: the product's share shows). */
  conversationTurns: number;
  /** Round 2: conversations at once, turns each. */
  concurrentSessions: number;
  concurrentTurns: number;
  /** Both: the model's pace for rounds 1 and 2. */
  paced: ModelPace;
  /** Round 3: new turns per second for `seconds`, each answer at `pace`. */
  load: { arrivalsPerSecond: number; seconds: number; pace: ModelPace };
  /** A rate this machine carries, for the per-token and per-turn costs (an overloaded round measures queueing, not cost); unset: the load's own. */
  sustainedArrivalsPerSecond?: number;
}

export interface ModelPace {
  firstTokenMs: number;
  tokensPerSecond: number;
  tokens: number;
}

const modelSettings = (pace: ModelPace) => ({ tokens: pace.tokens, intervalMs: 1000 / pace.tokensPerSecond, firstTokenMs: pace.firstTokenMs });

/** (first token on the client − POST) − (model's first write − its request's arrival). */
const addedToFirstToken = (record: TurnRecord): number =>
  record.firstToken! - record.posted - (record.modelFirstToken!.written - record.modelFirstToken!.received);

const answered = (records: TurnRecord[]) => records.filter((r) => !r.failed && r.firstToken !== undefined && r.modelFirstToken && r.done !== undefined);

function firstTokenRows(records: TurnRecord[], label: string): Array<Array<string | number>> {
  const ok = answered(records);
  return [
    summaryRow(`**${label}: added to the first token** (product − model's own wait)`, ok.map(addedToFirstToken)),
    summaryRow(
      "POST sent → 202",
      ok.map((r) => r.accepted - r.posted),
    ),
    summaryRow(
      "POST sent → the model has the request (HTTP, queue, classify, retrieve, prompt)",
      ok.map((r) => r.modelFirstToken!.received - r.posted),
    ),
    ...STAGE_SPANS.map(([label, from, to]) => summaryRow(`  ${label}`, ok.map((r) => timeAt(r, to) - timeAt(r, from)).filter(Number.isFinite))),
    summaryRow(
      "model's first write → first token on the client",
      ok.map((r) => r.firstToken! - r.modelFirstToken!.written),
    ),
    summaryRow(
      "POST sent → first token on the client (what the user waits)",
      ok.map((r) => r.firstToken! - r.posted),
    ),
    summaryRow(
      "token lag, every token (model write → client)",
      ok.flatMap((r) => r.tokenLags),
    ),
  ];
}

/** The first token's path, from the stage events as the client saw them (a stage a redelivered turn skips is left out). */
const STAGE_SPANS: Array<[string, string, string]> = [
  ["202 → classify started (the worker takes the job, reads the turn)", "accepted", "classify:started"],
  ["classify (started → completed)", "classify:started", "classify:completed"],
  ["classify completed → retrieve started", "classify:completed", "retrieve:started"],
  ["retrieve (started → completed)", "retrieve:started", "retrieve:completed"],
  ["retrieve completed → generate started", "retrieve:completed", "generate:started"],
  ["generate started → the model has the request (history, prompt, HTTP)", "generate:started", "model"],
];

/** The reasons turns ended without an answer, most common first: an error code, a refused POST, a timeout. */
function failureReasons(records: TurnRecord[]): string {
  const counts = new Map<string, number>();
  for (const record of records) {
    if (!record.failed && record.done !== undefined) continue;
    const reason = (record.failed ?? "no done event").replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>").slice(0, 160);
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([reason, count]) => `${count} × \`${reason}\``)
    .join("; ");
}

/** Why an arrival was never sent: every bench session was still waiting for its previous answer (the product fell behind). */
const NO_IDLE_SESSION = "no idle session";

/** Turns sent and not answered; answered turns whose tokens, seqs or end were not all there; arrivals never sent. */
function integrity(records: TurnRecord[], tokens: number): { lost: number; broken: number; unsent: number } {
  const unsent = records.filter((r) => r.failed === NO_IDLE_SESSION).length;
  return {
    lost: records.filter((r) => r.failed !== NO_IDLE_SESSION && (r.failed || r.done === undefined)).length,
    broken: records.filter((r) => !r.failed && r.done !== undefined && (!r.seqIntact || r.tokens !== tokens)).length,
    unsent,
  };
}

/** Round 1: one conversation, turn after turn; the first turns warm it up and are not counted. */
async function conversationRound(product: LaunchedProduct, token: string, settings: StreamingSettings): Promise<string> {
  await product.setModel(modelSettings(settings.paced));
  const session = await BenchSession.open(product.baseUrl, token);
  const records: TurnRecord[] = [];
  try {
    for (let i = 0; i < settings.conversationTurns + 2; i++) records.push(await session.turn(QUESTIONS[i % QUESTIONS.length]));
  } finally {
    session.close();
  }
  const counted = records.slice(2);
  const { lost, broken } = integrity(counted, settings.paced.tokens);
  return [
    `One conversation of ${counted.length} turns after 2 warm-up turns (turns 3–${records.length} counted: each has the history of those before it), questions varied; model: ${paceText(settings.paced)}. ${lost} lost, ${broken} broken.`,
    "",
    table(SUMMARY_HEADERS, firstTokenRows(counted, "one conversation")),
  ].join("\n");
}

/** Round 2: `concurrentSessions` conversations, each `concurrentTurns` turns back to back. */
async function concurrentRound(product: LaunchedProduct, token: string, settings: StreamingSettings): Promise<string> {
  await product.setModel({ tokens: 3, intervalMs: 0, firstTokenMs: 0 });
  const sessions = await openSessions([product.baseUrl], token, settings.concurrentSessions);
  await product.setModel(modelSettings(settings.paced));
  const records: TurnRecord[] = [];
  try {
    await Promise.all(
      sessions.map(async (session, s) => {
        for (let i = 0; i < settings.concurrentTurns; i++) records.push(await session.turn(QUESTIONS[(s + i) % QUESTIONS.length]));
      }),
    );
  } finally {
    for (const session of sessions) session.close();
  }
  const { lost, broken } = integrity(records, settings.paced.tokens);
  return [
    `${settings.concurrentSessions} conversations at once, ${settings.concurrentTurns} turns each back to back (each already had one turn); model: ${paceText(settings.paced)}. ${lost} lost, ${broken} broken.`,
    "",
    table(SUMMARY_HEADERS, firstTokenRows(records, `${settings.concurrentSessions} at once`)),
  ].join("\n");
}

interface LoadResult {
  records: TurnRecord[];
  /** Conversations the round had open (each takes a new turn only once its last is answered). */
  sessions: number;
  seconds: number;
  peakStreams: number;
  cpu: Array<{ role: string; cpuMs: number }>;
  redisCommands: Array<[string, number]>;
  probes: Awaited<ReturnType<LaunchedProduct["probeWindow"]>>;
  clientLoop: { p50: number; p99: number; max: number };
  clientHops: ReturnType<typeof takeStampAges>;
  logLines: number;
}

/**
 * Round 3: open-loop arrivals — a new turn every 1/rate s on an idle session, whatever is still
 * streaming. With `stampAges: false` no process looks for the model's stamps in its socket bytes
 * (no hop table): what the round's CPU says is then the product's alone.
 */
async function loadRound(product: LaunchedProduct, token: string, load: StreamingSettings["load"], { stampAges = true } = {}): Promise<LoadResult> {
  const turns = Math.round(load.arrivalsPerSecond * load.seconds);
  const answerSeconds = load.pace.firstTokenMs / 1000 + load.pace.tokens / load.pace.tokensPerSecond;
  // Enough sessions that one is always idle: the expected number streaming at once, and a margin.
  const sessionCount = Math.min(turns, Math.ceil(load.arrivalsPerSecond * answerSeconds * 2) + 10);
  await product.setModel({ tokens: 3, intervalMs: 0, firstTokenMs: 0 });
  const sessions = await openSessions([product.baseUrl], token, sessionCount, 25);
  const idle = [...sessions];
  await product.setModel(modelSettings(load.pace));
  await fetch(`${modelBase(product)}/bench/stats?reset=1`);
  const before = await commandCounts(product.redis);
  await product.probeWindow({ stampAges });
  product.takeLogLines();
  const processes = [...product.processes(), { role: "model", pid: product.modelPid }];
  const cpuBefore = new Map(processes.map((p) => [p.pid, processUsage(p.pid).cpuMs]));
  const selfBefore = process.cpuUsage();
  watchStampAges();
  pauseStampAges(!stampAges);
  takeStampAges();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const started = performance.now();
  const records: Array<Promise<TurnRecord>> = [];
  const t0 = wallClockMs();
  for (let i = 0; i < turns; i++) {
    // Against the schedule, so a late timer does not slow the arrivals.
    const due = t0 + (i * 1000) / load.arrivalsPerSecond;
    if (due > wallClockMs()) await sleep(due - wallClockMs());
    const session = idle.shift();
    if (!session) {
      records.push(Promise.resolve(noSession()));
      continue;
    }
    records.push(
      session
        .turn(QUESTIONS[i % QUESTIONS.length], 180_000)
        .catch((error: unknown): TurnRecord => ({ ...noSession(), failed: String(error) }))
        .finally(() => idle.push(session)),
    );
  }
  const done = await Promise.all(records);
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  const self = process.cpuUsage(selfBefore);
  const after = [...product.processes(), { role: "model", pid: product.modelPid }];
  const cpu: Array<{ role: string; cpuMs: number }> = [];
  const afterByRole = cpuByRole(after);
  const beforeByRole = new Map<string, number>();
  for (const p of after) beforeByRole.set(p.role, (beforeByRole.get(p.role) ?? 0) + (cpuBefore.get(p.pid) ?? 0));
  for (const [role, cpuMs] of afterByRole) cpu.push({ role, cpuMs: cpuMs - (beforeByRole.get(role) ?? 0) });
  cpu.push({ role: "bench clients", cpuMs: (self.user + self.system) / 1000 });
  const probes = await product.probeWindow();
  pauseStampAges(false);
  const redisCommands = commandDelta(before, await commandCounts(product.redis));
  const stats = (await (await fetch(`${modelBase(product)}/bench/stats`)).json()) as { peakAnswering: number };
  for (const session of sessions) session.close();
  return {
    records: done,
    sessions: sessions.length,
    seconds,
    peakStreams: stats.peakAnswering,
    cpu,
    redisCommands,
    probes,
    clientLoop: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    clientHops: takeStampAges(),
    logLines: product.takeLogLines(),
  };
}

let modelUrl = "";
const modelBase = (_product: LaunchedProduct) => modelUrl.replace(/\/v1$/, "");
const noSession = (): TurnRecord => ({ turnId: "", posted: 0, accepted: 0, stages: {}, tokenLags: [], tokens: 0, seqIntact: false, failed: NO_IDLE_SESSION });
const paceText = (pace: ModelPace) =>
  `${fmt(pace.firstTokenMs, 0)} ms to the first token, ${pace.tokens} tokens at ${pace.tokensPerSecond} tokens/s (${fmt(pace.firstTokenMs / 1000 + pace.tokens / pace.tokensPerSecond, 1)} s an answer)`;

/** Roles of the product itself: what the CPU-per-token goal counts. The model and the clients are the load. */
const PRODUCT_ROLES = ["worker", "server", "redis", "postgres", "launcher"];

function renderLoad(result: LoadResult, load: StreamingSettings["load"]): string {
  const ok = answered(result.records);
  const tokens = ok.reduce((sum, r) => sum + r.tokens, 0);
  const { lost, broken, unsent } = integrity(result.records, load.pace.tokens);
  const commands = result.redisCommands.reduce((sum, [, calls]) => sum + calls, 0);
  const productCpu = result.cpu.filter((c) => PRODUCT_ROLES.includes(c.role)).reduce((sum, c) => sum + c.cpuMs, 0);
  const lags = ok.flatMap((r) => r.tokenLags);
  const added = ok.map(addedToFirstToken);
  const cpuRows = result.cpu
    .sort((a, b) => b.cpuMs - a.cpuMs)
    .map((c) => [
      c.role,
      fmt((c.cpuMs / (result.seconds * 1000)) * 100, 0),
      fmt((c.cpuMs * 1000) / Math.max(1, tokens), 1),
      fmt(c.cpuMs / Math.max(1, ok.length), 1),
    ]);
  cpuRows.push([
    "**the product** (worker, server, Redis, Postgres, launcher)",
    fmt((productCpu / (result.seconds * 1000)) * 100, 0),
    `**${fmt((productCpu * 1000) / Math.max(1, tokens), 1)}**`,
    fmt(productCpu / Math.max(1, ok.length), 1),
  ]);
  const hopRows: Array<Array<string | number>> = [];
  for (const report of [...result.probes.map((p) => ({ role: p.role, ages: p.stampAges ?? {} })), { role: "bench clients", ages: result.clientHops }])
    for (const [hop, age] of Object.entries(report.ages)) hopRows.push([hop, report.role, age.count, fmt(age.p50), fmt(age.p99), fmt(age.max)]);
  const verdict = (met: boolean) => (met ? "**met**" : "**missed**");
  const lagP99 = percentile(lags, 99);
  const firstP99 = percentile(added, 99);
  const perToken = (productCpu * 1000) / Math.max(1, tokens);
  const commandsPerToken = commands / Math.max(1, tokens);
  return [
    `${result.records.length} turns arriving at ${load.arrivalsPerSecond}/s for ${load.seconds} s on continuing conversations, each answer ${paceText(load.pace)}; at most **${result.peakStreams} answers streaming at once** (the model's count). ${fmt(result.seconds)} s in all; ${result.logLines} log lines (${fmt(result.logLines / Math.max(1, result.records.length), 1)} per turn).`,
    "",
    table(SUMMARY_HEADERS, [
      summaryRow("token lag (model write → client), every token", lags),
      summaryRow("added to the first token (product − model's own wait)", added),
      summaryRow(
        "POST sent → the model has the request",
        ok.map((r) => r.modelFirstToken!.received - r.posted),
      ),
      summaryRow(
        "model's first write → first token on the client",
        ok.map((r) => r.firstToken! - r.modelFirstToken!.written),
      ),
    ]),
    "",
    ...(lost > 0 ? [`Why turns did not finish: ${failureReasons(result.records.filter((r) => r.failed !== NO_IDLE_SESSION))}.`, ""] : []),
    `- Nothing lost: ${lost} of ${result.records.length - unsent} turns sent lost, ${broken} with a gap, repeat or missing token, ${tokens} tokens delivered of ${result.records.length * load.pace.tokens}${unsent > 0 ? `; **${unsent} arrivals not sent**: every one of the bench's ${result.sessions} sessions was still waiting for its previous answer (the product fell behind the arrivals)` : ""} — ${verdict(lost === 0 && broken === 0 && unsent === 0)}.`,
    `- Token lag p99 ≤ 50 ms: ${fmt(lagP99)} ms — ${verdict(lagP99 <= 50)}; first token p99 ≤ 150 ms after the model's: ${fmt(firstP99)} ms — ${verdict(firstP99 <= 150)}.`,
    `- CPU per streamed token over the product's processes ≤ 50 µs: ${fmt(perToken, 1)} µs (every CPU-ms of the round ÷ tokens delivered, turn starts included) — ${verdict(perToken <= 50)}.`,
    `- Redis commands per token ≤ 0.5: ${fmt(commandsPerToken, 2)} (every command Redis ran, Lua's and BullMQ's included: ${result.redisCommands
      .slice(0, 6)
      .map(([name, calls]) => `${name} ${fmt(calls / Math.max(1, tokens), 3)}`)
      .join(", ")}) — ${verdict(commandsPerToken <= 0.5)}.`,
    "",
    table(["process", "CPU (% of one core)", "CPU per token (µs)", "CPU per turn (ms)"], cpuRows),
    "",
    "Where the tokens waited (age since the model wrote them, ms):",
    "",
    table(["hop", "process", "n", "p50", "p99", "max"], hopRows),
    "",
    waitTable(result.probes),
    "",
    `Bench clients' event loop: p50 ${fmt(result.clientLoop.p50)} / p99 ${fmt(result.clientLoop.p99)} / max ${fmt(result.clientLoop.max)} ms.`,
  ].join("\n");
}

/**
 * Per-token and per-turn CPU and Redis commands, solved from two rounds with the same arrivals whose
 * answers differ only in length: the slope is streaming's own cost per token, the intercept each
 * turn's fixed work (HTTP, jobs, classify, retrieve, prompt, store). The capacity model in
 * docs/operations.md is computed from these two figures.
 */
function renderMarginal(
  long: LoadResult,
  short: LoadResult,
  loads: { long: StreamingSettings["load"]; short: StreamingSettings["load"] },
  stamped: LoadResult,
): string {
  const tokensOf = (r: LoadResult) => answered(r.records).reduce((sum, record) => sum + record.tokens, 0);
  const productCpuOf = (r: LoadResult) => r.cpu.filter((c) => PRODUCT_ROLES.includes(c.role)).reduce((sum, c) => sum + c.cpuMs, 0);
  // The same arrivals and answers with the stamps watched: what watching costs the product's processes per token.
  const watching = productCpuOf(stamped) / Math.max(1, tokensOf(stamped)) - productCpuOf(long) / Math.max(1, tokensOf(long));
  const turnsOf = (r: LoadResult) => answered(r.records).length;
  const extra = Math.max(1, tokensOf(long) - tokensOf(short));
  const roles = [...new Set([...long.cpu, ...short.cpu].map((c) => c.role))];
  const cpuOf = (r: LoadResult, role: string) => r.cpu.find((c) => c.role === role)?.cpuMs ?? 0;
  const rows = roles.map((role) => {
    const perToken = (cpuOf(long, role) - cpuOf(short, role)) / extra;
    const perTurn = (cpuOf(short, role) - perToken * tokensOf(short)) / Math.max(1, turnsOf(short));
    return { role, perToken, perTurn };
  });
  const product = rows.filter((row) => PRODUCT_ROLES.includes(row.role));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const productToken = sum(product.map((row) => row.perToken));
  const productTurn = sum(product.map((row) => row.perTurn));
  const commandsOf = (r: LoadResult) => sum(r.redisCommands.map(([, calls]) => calls));
  const commandsPerToken = (commandsOf(long) - commandsOf(short)) / extra;
  const commandsPerTurn = (commandsOf(short) - commandsPerToken * tokensOf(short)) / Math.max(1, turnsOf(short));
  const shortBy = new Map(short.redisCommands);
  const byCommand = long.redisCommands
    .map(([name, calls]): [string, number] => [name, (calls - (shortBy.get(name) ?? 0)) / extra])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, calls]) => `${name} ${fmt(calls, 3)}`)
    .join(", ");
  const verdict = (met: boolean) => (met ? "**met**" : "**missed**");
  return [
    `Per token and per turn, from two more rounds with the arrivals above and no process watching the token stamps (the bench's byte scan, which cost the product's processes ${fmt(watching * 1000, 1)} µs a token in the round above): answers of ${loads.long.pace.tokens} tokens (at most ${long.peakStreams} streaming at once; ${integrity(long.records, loads.long.pace.tokens).lost} lost) and of ${loads.short.pace.tokens} tokens (at most ${short.peakStreams}; ${integrity(short.records, loads.short.pace.tokens).lost} lost). The slope between them is streaming's own cost per token, the rest is each turn's fixed work.`,
    "",
    table(
      ["process", "CPU per streamed token (µs)", "CPU per turn (ms)"],
      [
        ...rows.map((row) => [row.role, fmt(row.perToken * 1000, 1), fmt(row.perTurn, 1)]),
        ["**the product**", `**${fmt(productToken * 1000, 1)}**`, `**${fmt(productTurn, 1)}**`],
      ],
    ),
    "",
    `- CPU per streamed token over the product's processes ≤ 50 µs: **${fmt(productToken * 1000, 1)} µs** — ${verdict(productToken * 1000 <= 50)}; each turn's fixed work ${fmt(productTurn, 1)} ms.`,
    `- Redis commands per streamed token ≤ 0.5: **${fmt(commandsPerToken, 2)}** (${byCommand}) — ${verdict(commandsPerToken <= 0.5)}; each turn's fixed ${fmt(commandsPerTurn, 0)} commands (BullMQ's job moves and locks, stage events, cancel checks) add ${fmt(commandsPerTurn / 300, 2)} per token to a 300-token answer.`,
  ].join("\n");
}

/** What people type: questions of several kinds and languages, so history and retrieval vary turn to turn. */
const QUESTIONS = [
  "How many days do I have to return an item for a refund?",
  "And if the customer lost the receipt, what then?",
  "¿Cuántos días tengo para devolver un producto?",
  "I'm not sure I understood — can you say that more simply?",
  "What does the safety policy say about lifting heavy boxes?",
  "Quels sont les horaires de l'entrepôt ?",
  "Can you give me an example?",
  "ok thanks, one more: who approves a refund over 200 euros?",
];

export const streamingModelModule = {
  name: "streaming-model",
  title: "8. A model that streams at a real pace, through `npm start`",
  async run(settings: BenchSettings): Promise<string> {
    const streaming = settings.streaming;
    const model = await spawnUntilReady(process.execPath, ["--import", "tsx", "scripts/bench/model-server.ts"], {
      name: "model",
      readyPattern: /^READY (\S+)/,
      timeoutMs: 30_000,
    });
    modelUrl = model.match[1]!;
    // BENCH_LAUNCH_ENV='{"LOG_LEVEL":"silent"}' adds settings to the product's environment, to compare one change.
    const extra = JSON.parse(process.env.BENCH_LAUNCH_ENV ?? "{}") as Record<string, string>;
    const product = await launchProduct(modelUrl, model.child, { BENCH_STAMP_AGES: "1", ...extra });
    try {
      const token = await devLogin(product.baseUrl);
      // BENCH_STREAM_ROUNDS=conversation,concurrent,load picks rounds (all by default), for development.
      const rounds = (process.env.BENCH_STREAM_ROUNDS ?? "conversation,concurrent,load").split(",");
      const skipped = "_not run (BENCH_STREAM_ROUNDS)_";
      const conversation = rounds.includes("conversation") ? await conversationRound(product, token, streaming) : skipped;
      const concurrent = rounds.includes("concurrent") ? await concurrentRound(product, token, streaming) : skipped;
      let load = skipped;
      if (rounds.includes("load")) {
        const goal = await loadRound(product, token, streaming.load);
        const parts = [renderLoad(goal, streaming.load)];
        const sustained = streaming.sustainedArrivalsPerSecond;
        // A rate the machine carries, when the goal's is more than it does: the costs below are solved there.
        const costLoad = sustained && sustained !== streaming.load.arrivalsPerSecond ? { ...streaming.load, arrivalsPerSecond: sustained } : undefined;
        const long = costLoad ? await loadRound(product, token, costLoad) : goal;
        if (costLoad) parts.push("", `##### The same at ${costLoad.arrivalsPerSecond} new turns a second`, "", renderLoad(long, costLoad));
        // The same arrivals with answers a third as long: the difference is what streaming itself costs per token, the rest is per turn.
        const base = costLoad ?? streaming.load;
        const shortLoad = { ...base, pace: { ...base.pace, tokens: Math.round(base.pace.tokens / 3) } };
        if (rounds.includes("marginal") || !process.env.BENCH_STREAM_ROUNDS) {
          // Both without the stamp watching, whose own CPU per token the rounds above include.
          const longCost = await loadRound(product, token, base, { stampAges: false });
          const shortCost = await loadRound(product, token, shortLoad, { stampAges: false });
          parts.push("", renderMarginal(longCost, shortCost, { long: base, short: shortLoad }, long));
        }
        load = parts.join("\n");
      }
      return [
        "The launcher (`launcher/start.ts`, as `npm start` runs it: embedded PostgreSQL server and redis-server, one server and one worker with their defaults, JSON logs at `info` relayed by the launcher to a file) against the bench model; only the per-user limits are lifted, as every bench session is the same employee.",
        "",
        "#### One conversation",
        "",
        conversation,
        "",
        "#### Conversations at once",
        "",
        concurrent,
        "",
        "#### Hundreds of answers streaming at once",
        "",
        load,
      ].join("\n");
    } finally {
      await product.stop();
      await model.child.stop(2_000);
    }
  },
};
