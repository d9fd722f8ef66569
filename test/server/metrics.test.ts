/**
 * Issue 10, part 7: what /metrics tells ops. A real turn moves time to first token, tokens
 * streamed and job durations per stage; failed attempts are counted by queue and code (model
 * errors included, retried or not); a reconnect with lastSeq counts as a resume; the oldest
 * waiting job and the workers per queue are read from Redis at scrape time. The Grafana
 * dashboard and the alert rules parse, and use only metric names /metrics exports.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { parse as parseYaml } from "yaml";
import { QUEUE_PREFIX } from "../../queues/names";
import type { JobProducer } from "../../queues/producer";
import type { ServerDeps } from "../../server/deps";
import { ServerMetrics } from "../../server/metrics";
import { connect, join, recordEvents, waitFor } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { stackWorker } from "../reliability/helpers";
import { ask, freshEmployee, removeFreshEmployees } from "../workers/tutor/helpers";
import { isExported, parseExposition, scrape, total, type Scrape } from "./metrics-helpers";

const DASHBOARD = "ops/grafana/skillnet-chat.json";
const ALERTS = "ops/prometheus/alerts.yml";

interface Panel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: Array<{ expr: string; datasource?: { uid?: string } }>;
}
interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string };
}

const metricNames = (expr: string): string[] => [...expr.matchAll(/\bskillnet_[a-z0-9_]+/g)].map((match) => match[0]);

describe("ops metrics", function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  afterEach(async () => {
    stack.llm.reset();
    stack.workers.deps.llm.cooldowns.clear();
    await removeFreshEmployees(stack);
  });

  it("a turn moves time to first token, tokens streamed and the job duration of each tutor stage", async () => {
    const before = await scrape(stack);
    const learner = await freshEmployee(stack);
    const turn = await ask(stack, learner, "How many days do I have to return an item?");
    expect(turn.done, turn.names.join(",")).to.not.equal(undefined);
    const tokenEvents = turn.events.filter((e) => e.event === "token").length;
    expect(tokenEvents).to.be.greaterThan(0);

    // Job-end messages are published after the handler returns, so the last stage may trail `done` a little.
    const completed = (s: Scrape, queue: string) => total(s, "skillnet_job_duration_seconds_count", { queue, outcome: "completed" });
    const after = await waitFor(
      async () => {
        const s = await scrape(stack);
        // A turn is one job; its classify and retrieve stages report under labels of their own.
        return ["tutor-classify", "tutor-retrieve", "tutor-generate"].every((queue) => completed(s, queue) > completed(before, queue)) && s;
      },
      10_000,
      "a completed job of each tutor stage in /metrics",
    );

    expect(total(after, "skillnet_time_to_first_token_seconds_count") - total(before, "skillnet_time_to_first_token_seconds_count")).to.equal(1);
    expect(total(after, "skillnet_time_to_first_token_seconds_sum")).to.be.greaterThan(total(before, "skillnet_time_to_first_token_seconds_sum"));
    expect(total(after, "skillnet_tokens_streamed_total") - total(before, "skillnet_tokens_streamed_total")).to.be.at.least(tokenEvents);
    expect(total(after, "skillnet_model_tokens_used_total")).to.be.greaterThan(total(before, "skillnet_model_tokens_used_total"));
    expect(total(after, "skillnet_tutor_turns_total", { outcome: "done" }) - total(before, "skillnet_tutor_turns_total", { outcome: "done" })).to.be.at.least(
      1,
    );
    expect(after.text).to.match(/skillnet_job_duration_seconds_bucket\{le="\+Inf",queue="tutor-generate",outcome="completed"\} [1-9]/);
  });

  it("reads workers per queue and the dependencies' health at scrape time", async () => {
    const scraped = await scrape(stack);
    // The stack's workers serve every queue (WORKER_QUEUES=all).
    for (const queue of ["tutor-generate", "admin-plan", "ingest-embed"]) {
      expect(total(scraped, "skillnet_queue_workers", { queue }), queue).to.be.at.least(1);
    }
    expect(total(scraped, "skillnet_dependency_up", { dependency: "redis" })).to.equal(1);
    expect(total(scraped, "skillnet_dependency_up", { dependency: "postgres" })).to.equal(1);
  });

  it("reports how long the head of each queue has waited: the oldest plain job, or the next prioritized one", async () => {
    const worker = stackWorker(stack, "ingest-extract");
    await worker.pause();
    const queue = stack.server.deps.producer.queue("ingest-extract");
    const added: string[] = [];
    const add = async (ageSeconds: number, priority?: number) => {
      const job = await queue.add(
        "ingest-extract",
        { probe: true },
        { jobId: `metrics-probe-${randomUUID()}`, timestamp: Date.now() - ageSeconds * 1000, ...(priority ? { priority } : {}) },
      );
      added.push(job.id!);
    };
    const oldest = async () => total(await scrape(stack), "skillnet_queue_oldest_waiting_seconds", { queue: "ingest-extract" });
    try {
      expect(await oldest()).to.equal(0);
      await add(120);
      await add(5); // newer, at the other end of the wait list
      expect(await oldest()).to.be.within(119, 150);
      await add(300, 3);
      expect(await oldest()).to.be.within(299, 330);
    } finally {
      for (const id of added) await queue.remove(id).catch(() => undefined);
      worker.resume();
    }
    expect(await oldest()).to.equal(0);
  });

  it("counts failed attempts by queue and code: a model error that is retried, and a malformed job that is not", async () => {
    const before = await scrape(stack);
    const answer = "Returns are accepted within thirty days of purchase when the item is unused and you still have the receipt.";
    // A generation stream cut after three tokens (a job retry), then the full answer: the manual's sources settle the route, no classification call.
    stack.llm.enqueueReply({ content: answer, cutAfterTokens: 3 }, { content: answer });
    const learner = await freshEmployee(stack);
    const turn = await ask(stack, learner, "How many days do I have to return an item for a refund?");
    expect(turn.errors.map((e) => e.payload.code)).to.deep.equal(["LLM_UNAVAILABLE"]);
    expect(turn.done).to.not.equal(undefined);

    const malformed = await stack.server.deps.producer
      .queue("chat-summarise")
      .add("chat-summarise", { not: "a summary payload" }, { jobId: `metrics-malformed-${randomUUID()}` });
    try {
      const after = await waitFor(
        async () => {
          const s = await scrape(stack);
          return (
            total(s, "skillnet_job_failures_total", { queue: "chat-summarise", code: "UNRECOVERABLE", final: "true" }) >
              total(before, "skillnet_job_failures_total", { queue: "chat-summarise", code: "UNRECOVERABLE", final: "true" }) && s
          );
        },
        10_000,
        "the malformed job's failure in /metrics",
      );
      const delta = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
      expect(delta("skillnet_job_failures_total", { queue: "tutor-generate", code: "LLM_UNAVAILABLE", final: "false" })).to.be.at.least(1);
      expect(delta("skillnet_turn_errors_total", { code: "LLM_UNAVAILABLE", will_retry: "true" })).to.be.at.least(1);
      expect(delta("skillnet_job_duration_seconds_count", { queue: "tutor-generate", outcome: "failed" })).to.be.at.least(1);
    } finally {
      await malformed.remove().catch(() => undefined);
    }
  });

  it("counts a reconnect that resumes a turn after lastSeq, and the events it replayed", async () => {
    const learner = await freshEmployee(stack);
    const turn = await ask(stack, learner, "What is the returns window?");
    const lastSeq = 2;
    const before = await scrape(stack);
    const again = await connect(stack.baseUrl, learner.token);
    try {
      const received = recordEvents(again);
      const ack = await join(again, { sessionId: turn.sessionId, turnId: turn.turnId, lastSeq });
      expect(ack).to.include({ ok: true });
      const replayed = (ack as { replayed: number }).replayed;
      expect(replayed).to.equal(turn.events.length - lastSeq);
      await waitFor(() => received.length >= replayed, 5_000, "the replayed events");
      const after = await scrape(stack);
      expect(total(after, "skillnet_turn_replays_total", { reason: "resume" }) - total(before, "skillnet_turn_replays_total", { reason: "resume" })).to.equal(
        1,
      );
      expect(
        total(after, "skillnet_turn_replayed_events_total", { reason: "resume" }) - total(before, "skillnet_turn_replayed_events_total", { reason: "resume" }),
      ).to.equal(replayed);
    } finally {
      again.disconnect();
    }
  });

  it("sees a queue's workers come and go (the no-workers alert), on a queue of its own", async () => {
    const name = `metrics-probe-${randomUUID()}`;
    const connection = stack.server.deps.redis;
    const queue = new Queue(name, { connection, prefix: QUEUE_PREFIX });
    const metrics = new ServerMetrics({ producer: { allQueues: () => [queue] } as unknown as JobProducer });
    const workers = async () => total(parseExposition(await metrics.registry.metrics()), "skillnet_queue_workers", { queue: name });
    const workerConnection = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const worker = new Worker(name, async () => undefined, { connection: workerConnection, prefix: QUEUE_PREFIX });
    try {
      await worker.waitUntilReady();
      await waitFor(async () => (await workers()) === 1, 5_000, "one worker on the probe queue");
      await worker.close();
      expect(await workers()).to.equal(0);
    } finally {
      await worker.close().catch(() => undefined);
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      workerConnection.disconnect();
    }
  });

  it("still answers a scrape while Redis and Postgres are down, saying so instead of failing", async () => {
    const refuse = async () => {
      throw new Error("connection refused");
    };
    const deadQueue = { name: "tutor-generate", getJobCounts: refuse, getJobs: refuse, getWorkersCount: refuse };
    const metrics = new ServerMetrics({
      producer: { allQueues: () => [deadQueue] } as unknown as JobProducer,
      redis: { ping: refuse } as unknown as ServerDeps["redis"],
      db: { raw: refuse } as unknown as ServerDeps["db"],
    });
    const scraped = parseExposition(await metrics.registry.metrics());
    expect(total(scraped, "skillnet_dependency_up", { dependency: "redis" })).to.equal(0);
    expect(total(scraped, "skillnet_dependency_up", { dependency: "postgres" })).to.equal(0);
    expect([...scraped.samples.keys()].filter((series) => series.startsWith("skillnet_queue_"))).to.deep.equal([]);
  });

  describe("the Grafana dashboard and the alert rules", () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
      templating: { list: Array<{ type: string; name: string; query: unknown }> };
      panels: Panel[];
    };
    const rules = (parseYaml(readFileSync(ALERTS, "utf8")) as { groups: Array<{ name: string; rules: AlertRule[] }> }).groups.flatMap((group) => group.rules);
    const panels = dashboard.panels.filter((panel) => panel.type !== "row");
    const dashboardExprs = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

    it("parse, with a Prometheus datasource variable every panel uses, and complete alert rules", () => {
      const datasource = dashboard.templating.list.find((variable) => variable.type === "datasource");
      expect(datasource).to.include({ name: "datasource", query: "prometheus" });
      expect(panels.length).to.be.at.least(20);
      for (const panel of panels) {
        expect(panel.datasource?.uid, panel.title).to.equal("${datasource}");
        expect(panel.targets, panel.title).to.have.length.greaterThan(0);
      }
      expect(rules.map((rule) => rule.alert)).to.include.members([
        "SkillnetQueueBacklog",
        "SkillnetNoWorkers",
        "SkillnetTurnErrorRate",
        "SkillnetModelErrors",
        "SkillnetNotReady",
        "SkillnetIngestionInternalFailures",
      ]);
      for (const rule of rules) {
        expect(rule.expr, rule.alert).to.be.a("string").and.not.be.empty;
        expect(rule.labels?.severity, rule.alert).to.be.oneOf(["critical", "warning"]);
        expect(rule.annotations?.summary, rule.alert).to.be.a("string");
        if (rule.for) expect(rule.for, rule.alert).to.match(/^\d+[smh]$/);
      }
    });

    it("come with an example Prometheus config that scrapes with the token and loads the rules", () => {
      const example = parseYaml(readFileSync("ops/prometheus/prometheus.example.yml", "utf8")) as {
        rule_files: string[];
        scrape_configs: Array<{ metrics_path: string; authorization?: { type: string } }>;
      };
      expect(example.rule_files).to.include("alerts.yml");
      expect(example.scrape_configs[0]).to.deep.include({ metrics_path: "/metrics" });
      expect(example.scrape_configs[0]!.authorization?.type).to.equal("Bearer");
    });

    it("cover what the issue asks to watch", () => {
      const used = new Set([...dashboardExprs, ...rules.map((rule) => rule.expr)].flatMap(metricNames));
      for (const name of [
        "skillnet_http_request_duration_seconds_bucket",
        "skillnet_queue_jobs",
        "skillnet_queue_oldest_waiting_seconds",
        "skillnet_queue_workers",
        "skillnet_job_duration_seconds_bucket",
        "skillnet_job_failures_total",
        "skillnet_time_to_first_token_seconds_bucket",
        "skillnet_tokens_streamed_total",
        "skillnet_turn_errors_total",
        "skillnet_socket_connections",
        "skillnet_turn_replays_total",
        "skillnet_dependency_up",
      ]) {
        expect(used.has(name), name).to.equal(true);
      }
      for (const quantile of ["0.5", "0.95", "0.99"]) expect(dashboardExprs.some((expr) => expr.startsWith(`histogram_quantile(${quantile},`))).to.equal(true);
    });

    it("use only metric names that /metrics exports", async () => {
      const scraped = await scrape(stack);
      const referenced = new Set([...dashboardExprs, ...rules.map((rule) => rule.expr)].flatMap(metricNames));
      expect(referenced.size).to.be.at.least(15);
      const missing = [...referenced].filter((name) => !isExported(scraped, name));
      expect(missing, `referenced but not exported: ${missing.join(", ")}`).to.deep.equal([]);
    });
  });
});
