/**
 * Prometheus metrics at GET /metrics (every name is listed in docs/operations.md, and the
 * Grafana dashboard and alert rules under ops/ use only names exported here; a test keeps them
 * in step). Three sources:
 * - this node's own traffic: HTTP latency by route, connected sockets, replays to its sockets,
 *   and time to first token of the turns it accepted (sum these across nodes);
 * - Redis at scrape time: jobs per queue and state, the oldest waiting job, workers per queue
 *   (the same on every node: use max());
 * - events every node receives from the workers over Redis: turn events (outcomes, error codes,
 *   tokens streamed, stage latencies) and one message per finished job attempt (duration and
 *   failures per queue); per cluster on each node, so aggregate them with max(), not sum().
 * Metrics reveal traffic and queue shapes, so they need METRICS_TOKEN (`Authorization: Bearer
 * <token>`); without a token they are served only with dev-login on (embedded development) and
 * refused otherwise.
 */
import type { Context, Middleware } from "koa";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { ACTION_END_STATUSES, ADMIN_TOOL_NAMES, RETRIEVAL_SOURCES, type TurnEventEnvelope } from "../queues/events/contract";
import type { JobEnd, ReplicaSkips } from "../queues/events/job-events";
import type { ServerDeps } from "./deps";
import type { Config } from "../lib/config";
import { hasOpsToken } from "./auth/ops-token";
import { forbidden, unauthorized } from "./errors";
import { FirstTokenClock } from "./first-token-clock";
import { registerQueueGauges } from "./queue-gauges";
import type { ReplayObserver, ReplayReason } from "./sockets/turn-delivery";

const PROBE_TIMEOUT_MS = 2_000;

/** Resolves true when `check` answers within the probe timeout. */
async function answers(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Error codes become label values; anything outside the documented shape is folded into one. */
const codeLabel = (code: unknown): string => (typeof code === "string" && /^[A-Z][A-Z0-9_]{0,47}$/.test(code) ? code : "OTHER");

/**
 * A label value from an event field that must be one of a fixed set; anything else (a tool name
 * the model made up, a field from a newer or broken worker) is "other", so the number of series stays bounded.
 */
const oneOf = (value: unknown, allowed: readonly string[]): string => (typeof value === "string" && allowed.includes(value) ? value : "other");

type DonePayload = { tokensUsed?: number; cancelled?: boolean; retrievalSource?: string; retrievalLatencyMs?: number; generationLatencyMs?: number };

export class ServerMetrics implements ReplayObserver {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: "skillnet_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly sockets = new Gauge({ name: "skillnet_socket_connections", help: "Connected Socket.IO clients on this node", registers: [this.registry] });
  private readonly turns = new Counter({
    name: "skillnet_tutor_turns_total",
    help: "Chat turns (tutor and admin) that ended, by outcome",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  private readonly turnLatency = new Histogram({
    name: "skillnet_tutor_stage_latency_seconds",
    help: "Retrieval and generation latency of finished tutor turns",
    labelNames: ["stage", "retrieval_source"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
    registers: [this.registry],
  });

  private readonly toolCalls = new Counter({
    name: "skillnet_admin_tool_calls_total",
    help: "Admin assistant tool calls, by tool and outcome",
    labelNames: ["tool", "ok"],
    registers: [this.registry],
  });
  private readonly actions = new Counter({
    name: "skillnet_admin_actions_total",
    help: "Admin actions that finished a run, by final status",
    labelNames: ["status"],
    registers: [this.registry],
  });

  private readonly turnErrors = new Counter({
    name: "skillnet_turn_errors_total",
    help: "Turn error events by code (TURN_LOST: ended by the sweeper); will_retry=true when a retry follows",
    labelNames: ["code", "will_retry"],
    registers: [this.registry],
  });
  private readonly tokensStreamed = new Counter({
    name: "skillnet_tokens_streamed_total",
    help: "Answer text chunks (token events) streamed to clients",
    registers: [this.registry],
  });
  private readonly tokensUsed = new Counter({
    name: "skillnet_model_tokens_used_total",
    help: "Model tokens (prompt + completion) of finished turns",
    registers: [this.registry],
  });
  private readonly firstToken = new Histogram({
    name: "skillnet_time_to_first_token_seconds",
    help: "From this node accepting a turn to its first token event (each turn counted once, on its accepting node)",
    buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60],
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: "skillnet_job_duration_seconds",
    help: "Duration of each job attempt in its worker, by queue and outcome",
    labelNames: ["queue", "outcome"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: "skillnet_job_failures_total",
    help: "Failed job attempts by queue and code (LLM_* codes are model errors); final=true when no retry follows",
    labelNames: ["queue", "code", "final"],
    registers: [this.registry],
  });
  private readonly replays = new Counter({
    name: "skillnet_turn_replays_total",
    help: "Replays from the event log to this node's sockets: resume (reconnect with lastSeq), join (late joiner), gap (missed live event), action",
    labelNames: ["reason"],
    registers: [this.registry],
  });
  private readonly replayedEvents = new Counter({
    name: "skillnet_turn_replayed_events_total",
    help: "Events sent by those replays",
    labelNames: ["reason"],
    registers: [this.registry],
  });
  private readonly firstTokens = new FirstTokenClock((seconds) => this.firstToken.observe(seconds));

  constructor(deps: Pick<ServerDeps, "producer"> & Partial<Pick<ServerDeps, "redis" | "db" | "log">>) {
    collectDefaultMetrics({ register: this.registry, prefix: "skillnet_server_" });
    registerQueueGauges(this.registry, deps.producer, deps.log);
    const { redis, db } = deps;
    new Gauge({
      name: "skillnet_dependency_up",
      help: "1 when the dependency answers this node (the /readyz checks), else 0",
      labelNames: ["dependency"],
      registers: [this.registry],
      async collect() {
        const [redisUp, postgresUp] = await Promise.all([redis ? answers(() => redis.ping()) : undefined, db ? answers(() => db.raw("select 1")) : undefined]);
        if (redisUp !== undefined) this.set({ dependency: "redis" }, Number(redisUp));
        if (postgresUp !== undefined) this.set({ dependency: "postgres" }, Number(postgresUp));
      },
    });
  }

  /** This node accepted a turn: starts its time-to-first-token clock. */
  turnAccepted(turnId: string): void {
    this.firstTokens.accepted(turnId);
  }

  /** A replay to one of this node's sockets sent `events` events (0: nothing was missed). */
  replayed(reason: ReplayReason, events: number): void {
    this.replays.inc({ reason });
    if (events > 0) this.replayedEvents.inc({ reason }, events);
  }

  private readonly replicaSkips = new Counter({
    name: "skillnet_db_replica_skipped_reads_total",
    help: "Worker reads (retrieval, history) sent to the primary because the read replica was down or lagging past DATABASE_READ_MAX_LAG_MS",
    labelNames: ["reason"],
    registers: [this.registry],
  });

  /** Called for each replica-skip tally a worker published. */
  observeReplicaSkips(skips: ReplicaSkips): void {
    if (skips.down > 0) this.replicaSkips.inc({ reason: "down" }, skips.down);
    if (skips.lagging > 0) this.replicaSkips.inc({ reason: "lagging" }, skips.lagging);
  }

  /** Called for each job-end message a worker published. */
  observeJobEnd(end: JobEnd): void {
    if (end.durationMs !== undefined) this.jobDuration.observe({ queue: end.queue, outcome: end.outcome }, end.durationMs / 1000);
    if (end.outcome === "failed") this.jobFailures.inc({ queue: end.queue, code: codeLabel(end.errorCode), final: String(!end.willRetry) });
  }

  /** Koa middleware timing every request by its matched route (not its raw path, to bound labels). */
  http(): Middleware {
    return async (ctx, next) => {
      const end = this.httpDuration.startTimer({ method: ctx.method });
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith("/admin/queues") ? "/admin/queues" : "unmatched");
        end({ route: String(route), status: String(ctx.status) });
      }
    };
  }

  /** Called for each turn event this node receives from the workers. */
  observeTurnEvent(envelope: TurnEventEnvelope): void {
    const data = envelope.data as Record<string, unknown>;
    const turnId = typeof data.turnId === "string" ? data.turnId : undefined;
    if (envelope.event === "token") {
      this.tokensStreamed.inc();
      if (turnId) this.firstTokens.token(turnId);
    } else if (envelope.event === "tool_result") {
      const result = envelope.data as { tool: unknown; ok: unknown };
      this.toolCalls.inc({ tool: oneOf(result.tool, ADMIN_TOOL_NAMES), ok: String(result.ok === true) });
    } else if (envelope.event === "action_done") {
      this.actions.inc({ status: oneOf((envelope.data as { status: unknown }).status, ACTION_END_STATUSES) });
    } else if (envelope.event === "done") {
      this.observeDone(envelope.data as DonePayload);
      if (turnId) this.firstTokens.ended(turnId);
    } else if (envelope.event === "error") {
      const error = envelope.data as { code?: string; willRetry?: boolean };
      this.turnErrors.inc({ code: codeLabel(error.code), will_retry: String(Boolean(error.willRetry)) });
      if (!error.willRetry) {
        this.turns.inc({ outcome: "error" });
        if (turnId) this.firstTokens.ended(turnId);
      }
    }
  }

  private observeDone(done: DonePayload): void {
    this.turns.inc({ outcome: done.cancelled ? "cancelled" : "done" });
    this.tokensUsed.inc(Math.max(0, done.tokensUsed ?? 0));
    // Admin turns have no retrieval to time; a cancelled turn's figures describe a cut-short answer.
    if (done.retrievalLatencyMs === undefined || done.cancelled) return;
    const source = oneOf(done.retrievalSource ?? "none", RETRIEVAL_SOURCES);
    this.turnLatency.observe({ stage: "retrieval", retrieval_source: source }, done.retrievalLatencyMs / 1000);
    this.turnLatency.observe({ stage: "generation", retrieval_source: source }, (done.generationLatencyMs ?? 0) / 1000);
  }

  /** GET /metrics (server/routes/ops.ts): the exposition, behind METRICS_TOKEN or dev-login. */
  async serve(
    ctx: Context,
    { METRICS_TOKEN: token, DEV_LOGIN_ENABLED: devLogin }: Pick<Config["server"], "METRICS_TOKEN"> & Pick<Config["auth"], "DEV_LOGIN_ENABLED">,
  ): Promise<void> {
    if (!token && !devLogin) throw forbidden("Metrics are disabled: set METRICS_TOKEN and scrape with Authorization: Bearer <METRICS_TOKEN>");
    if (token && !hasOpsToken(ctx, token)) throw unauthorized("Metrics need Authorization: Bearer <METRICS_TOKEN>");
    ctx.set("Content-Type", this.registry.contentType);
    ctx.body = await this.registry.metrics();
  }
}
