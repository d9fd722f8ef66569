/**
 * Prometheus metrics at GET /metrics: HTTP latency by route, connected sockets, job counts
 * per queue and state (read from Redis at scrape time, so they cover every worker process),
 * and per-turn latencies observed from the `done` events every server node already receives.
 * Metrics reveal traffic and queue shapes, so they need METRICS_TOKEN (`Authorization: Bearer
 * <token>`); without a token they are served only with dev-login on (embedded development) and
 * refused otherwise. Every server node
 * receives every turn event, so turn metrics are per cluster on each node: aggregate them
 * across instances with max(), not sum().
 */
import Router from "@koa/router";
import type { Middleware } from "koa";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { TurnEventEnvelope } from "../queues/events/contract";
import type { ServerDeps } from "./deps";
import type { Config } from "../lib/config";
import { hasOpsToken } from "./auth/ops-token";
import { forbidden, unauthorized } from "./errors";

const JOB_STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "completed", "failed"] as const;

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: "skillnet_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly sockets = new Gauge({ name: "skillnet_socket_connections", help: "Connected Socket.IO clients on this node", registers: [this.registry] });
  private readonly turns = new Counter({ name: "skillnet_tutor_turns_total", help: "Chat turns (tutor and admin) that ended, by outcome", labelNames: ["outcome"], registers: [this.registry] });
  private readonly turnLatency = new Histogram({
    name: "skillnet_tutor_stage_latency_seconds",
    help: "Retrieval and generation latency of finished tutor turns",
    labelNames: ["stage", "retrieval_source"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
    registers: [this.registry],
  });

  private readonly toolCalls = new Counter({ name: "skillnet_admin_tool_calls_total", help: "Admin assistant tool calls, by tool and outcome", labelNames: ["tool", "ok"], registers: [this.registry] });
  private readonly actions = new Counter({ name: "skillnet_admin_actions_total", help: "Admin actions that finished a run, by final status", labelNames: ["status"], registers: [this.registry] });

  constructor(deps: Pick<ServerDeps, "producer">) {
    collectDefaultMetrics({ register: this.registry, prefix: "skillnet_server_" });
    new Gauge({
      name: "skillnet_queue_jobs",
      help: "Jobs per queue and state (all workers)",
      labelNames: ["queue", "state"],
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          deps.producer.allQueues().map(async (queue) => {
            const counts = await queue.getJobCounts(...JOB_STATES);
            for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
          }),
        );
      },
    });
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
    if (envelope.event === "tool_result") {
      const result = envelope.data as { tool: string; ok: boolean };
      this.toolCalls.inc({ tool: result.tool, ok: String(result.ok) });
    } else if (envelope.event === "action_done") {
      this.actions.inc({ status: (envelope.data as { status: string }).status });
    } else if (envelope.event === "done" && (envelope.data as { retrievalLatencyMs?: number }).retrievalLatencyMs === undefined) {
      this.turns.inc({ outcome: "done" }); // an admin turn: no retrieval to time
    } else if (envelope.event === "done") {
      const done = envelope.data as { retrievalSource?: string; retrievalLatencyMs?: number; generationLatencyMs?: number };
      const source = done.retrievalSource ?? "none";
      this.turns.inc({ outcome: "done" });
      this.turnLatency.observe({ stage: "retrieval", retrieval_source: source }, (done.retrievalLatencyMs ?? 0) / 1000);
      this.turnLatency.observe({ stage: "generation", retrieval_source: source }, (done.generationLatencyMs ?? 0) / 1000);
    } else if (envelope.event === "error" && !(envelope.data as { willRetry?: boolean }).willRetry) {
      this.turns.inc({ outcome: "error" });
    }
  }

  routes({ METRICS_TOKEN: token, DEV_LOGIN_ENABLED: devLogin }: Pick<Config, "METRICS_TOKEN" | "DEV_LOGIN_ENABLED">): Router {
    const router = new Router();
    router.get("/metrics", async (ctx) => {
      if (!token && !devLogin) throw forbidden("Metrics are disabled: set METRICS_TOKEN and scrape with Authorization: Bearer <METRICS_TOKEN>");
      if (token && !hasOpsToken(ctx, token)) throw unauthorized("Metrics need Authorization: Bearer <METRICS_TOKEN>");
      ctx.set("Content-Type", this.registry.contentType);
      ctx.body = await this.registry.metrics();
    });
    return router;
  }
}
