/**
 * Measure 1, what the pipeline adds: time to first token through the real path (HTTP → queues →
 * stage workers → Redis → socket) against the same stages called in this process, one after
 * another, with the same inputs, database and (instant) model. Turns run one at a time, so the
 * figure is the pipeline's own cost, not queueing behind other turns.
 */
import { parseConfig, resetConfig, type Config } from "../../lib/config";
import { resetLogger, componentLogger } from "../../lib/logger";
import { createDb } from "../../db/knex";
import { findTurnMessage } from "../../db/queries/chat-messages";
import { ReadRouter } from "../../db/read-replica";
import { createRedis } from "../../queues/connection";
import { TurnEventLog } from "../../queues/events/turn-stream";
import { UserEventPublisher } from "../../queues/events/user-events";
import { JobProducer } from "../../queues/producer";
import type { WorkerDeps } from "../../workers/deps";
import { LlmClient } from "../../workers/llm/client";
import { buildTutorMessages } from "../../workers/tutor/conversation";
import { classifyIntent } from "../../workers/tutor/intent";
import { runRetrievalLadder } from "../../workers/tutor/retrieval/ladder";
import { loadTurnContext } from "../../workers/tutor/turn-context";
import { BenchSession, devLogin, QUESTION, timeAt, type TurnRecord } from "./clients";
import type { BenchSettings } from "./settings";
import { startBenchStack, type BenchStack } from "./stack";
import { SUMMARY_HEADERS, summaryRow, table, percentile, fmt } from "./stats";
import { searchCaches } from "../../workers/search-caches";

interface InProcess {
  classify: number;
  retrieve: number;
  generate: number;
}

function workerDeps(config: Config): WorkerDeps {
  const log = componentLogger("bench");
  const redis = createRedis({ url: config.redis.REDIS_URL! }, "worker", log);
  const db = createDb({ url: config.database.DATABASE_URL!, poolMax: config.database.DATABASE_POOL_MAX });
  return {
    config,
    log,
    db,
    reads: new ReadRouter({ primary: db, maxLagMs: 0 }),
    redis,
    llm: new LlmClient(config, {}),
    searchCaches: searchCaches(),
    producer: new JobProducer(redis, log),
    events: new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 100 }),
    userEvents: new UserEventPublisher(redis),
  };
}

/** The three stages of one finished turn, run again here: no queue, no Redis events, no socket. */
async function stagesInProcess(deps: WorkerDeps, user: { orgId: string; userId: string }, record: TurnRecord, sessionId: string): Promise<InProcess> {
  const message = await findTurnMessage(deps.db, user.orgId, record.turnId, "user");
  if (!message) throw new Error(`turn ${record.turnId} has no stored message`);
  const payload = { ...user, sessionId, turnId: record.turnId, messageId: message.id, courseId: null, lessonId: null };
  let t0 = performance.now();
  let turn = await loadTurnContext(deps, payload);
  const { intent } = await classifyIntent(deps.llm, { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle }, payload);
  const classify = performance.now() - t0;
  t0 = performance.now();
  turn = await loadTurnContext(deps, payload);
  const retrieval = await runRetrievalLadder(deps, turn, intent);
  const retrieve = performance.now() - t0;
  t0 = performance.now();
  turn = await loadTurnContext(deps, payload);
  const messages = await buildTutorMessages(deps, turn, retrieval);
  let generate = 0;
  await deps.llm.stream({ useCase: "generation", orgId: turn.orgId, userId: turn.userId }, messages, { temperature: 0.3, maxTokens: 2_000 }, () => {
    if (!generate) generate = performance.now() - t0;
  });
  return { classify, retrieve, generate };
}

const span = (record: TurnRecord, from: string, to: string): number => timeAt(record, to) - timeAt(record, from);

export async function measureOverhead(stack: BenchStack, turns: number): Promise<string> {
  await stack.setModel({ tokens: 20, intervalMs: 0 });
  const baseUrl = stack.servers[0]!;
  const login = await devLogin(baseUrl);
  const me = (await (await fetch(`${baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${login}` } })).json()) as {
    id?: string;
    org_id?: string;
    user?: { id: string; org_id: string };
  };
  const user = { orgId: me.org_id ?? me.user!.org_id, userId: me.id ?? me.user!.id };
  const session = await BenchSession.open(baseUrl, login);
  // Warm-up: JIT, pools and the model connection, on both paths.
  for (let i = 0; i < 5; i++) await session.turn();
  const real: TurnRecord[] = [];
  for (let i = 0; i < turns; i++) real.push(await session.turn());
  session.close();
  const ok = real.filter((record) => !record.failed && record.firstToken && record.stages["generate:started"]);

  const previous = { ...process.env };
  Object.assign(process.env, stack.env, { LOG_LEVEL: "silent" });
  resetConfig();
  resetLogger();
  const deps = workerDeps(parseConfig(process.env));
  process.env = previous;
  resetConfig();
  try {
    for (const record of ok.slice(0, 3)) await stagesInProcess(deps, user, record, session.sessionId!);
    const local: InProcess[] = [];
    for (const record of ok) local.push(await stagesInProcess(deps, user, record, session.sessionId!));
    const ttft = ok.map((record) => record.firstToken! - record.posted);
    const baseline = local.map((stage) => stage.classify + stage.retrieve + stage.generate);
    const added = ttft.map((value, index) => value - baseline[index]!);
    const firstLag = ok.map((record) => record.tokenLags[0] ?? NaN).filter(Number.isFinite);
    const rows = [
      summaryRow("**TTFT, real path** (POST sent → first token on the socket)", ttft),
      summaryRow("**TTFT, stages in-process** (classify + retrieve + generate to first token)", baseline),
      summaryRow("**added by the pipeline** (per turn: real − in-process)", added),
      summaryRow(
        "real: POST → 202 Accepted (auth, store the message, enqueue the turn)",
        ok.map((r) => r.accepted - r.posted),
      ),
      summaryRow(
        "real: POST → classify started (… + worker pick-up, turn context)",
        ok.map((r) => span(r, "posted", "classify:started")),
      ),
      summaryRow(
        "real: classify (started → completed)",
        ok.map((r) => span(r, "classify:started", "classify:completed")),
      ),
      summaryRow(
        "in-process: classify",
        local.map((s) => s.classify),
      ),
      summaryRow(
        "real: hand-off classify → retrieve",
        ok.map((r) => span(r, "classify:completed", "retrieve:started")),
      ),
      summaryRow(
        "real: retrieve (started → completed)",
        ok.map((r) => span(r, "retrieve:started", "retrieve:completed")),
      ),
      summaryRow(
        "in-process: retrieve",
        local.map((s) => s.retrieve),
      ),
      summaryRow(
        "real: hand-off retrieve → generate",
        ok.map((r) => span(r, "retrieve:completed", "generate:started")),
      ),
      summaryRow(
        "real: generate started → first token on the socket",
        ok.map((r) => span(r, "generate:started", "token")),
      ),
      summaryRow(
        "in-process: generate to first model token",
        local.map((s) => s.generate),
      ),
      summaryRow("real: socket delivery of the first token (model write → client)", firstLag),
    ];
    return [
      `${ok.length} turns of "${QUESTION}" one at a time through one server and one worker, instant model; then each turn's stages again in the bench process. Stage times on the real path are the gaps between the \`stage\` events as the client received them.`,
      "",
      table(SUMMARY_HEADERS, rows),
      "",
      `Pipeline added: p50 ${fmt(percentile(added, 50))} ms, p99 ${fmt(percentile(added, 99))} ms (goal p50 ≤ 10, p99 ≤ 30); ratio real / in-process TTFT at p50: ${fmt(percentile(ttft, 50) / percentile(baseline, 50), 2)}×.`,
    ].join("\n");
  } finally {
    await Promise.allSettled([deps.redis.quit(), deps.db.destroy()]);
  }
}

export const pipelineOverheadModule = {
  name: "pipeline-overhead",
  title: "1. What the pipeline adds",
  async run(settings: BenchSettings): Promise<string> {
    const stack = await startBenchStack();
    try {
      return await measureOverhead(stack, settings.overheadTurns);
    } finally {
      await stack.stop();
    }
  },
};
