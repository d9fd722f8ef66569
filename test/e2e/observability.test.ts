/**
 * Ops' view of the product as `npm start` runs it, started once for both checks.
 *
 * Traces: the launcher's separate server,
 * worker and offline-model processes, each loading the tracing preload (lib/telemetry/register.ts),
 * export with the real OTLP/HTTP protobuf exporter to a receiver that decodes what arrives
 * (test/harness/otlp-receiver.ts). A tutor turn must come back as one connected trace across the
 * three processes: the HTTP request, BullMQ's enqueue and job, the stages with what retrieval found,
 * the model call after the GenAI conventions, Postgres and Redis calls, the model server's handling
 * of the request, and the server's delivery of the first token over the socket.
 *
 * Prometheus: a real Prometheus (Debian's package) with ops/prometheus/prometheus.example.yml,
 * adapted to the test's port and token file, scrapes the running server, loads the alert rules,
 * and answers queries for the product's metrics. The rules' own unit tests are test/ops/.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as joinPath, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { findFreePort } from "../../launcher/embedded/child-process";
import { expect } from "chai";
import { startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from "../harness/otlp-receiver";
import { askAdmin, waitForAction, type Person } from "../workers/admin/helpers";
import { api, connect, join, login, recordEvents, upload, waitFor, waitForTurnEnd } from "../harness/client";
import { makeHtml } from "../support/document-fixtures";
import { hasExited, launcherRunning, launcherSetup, processesOf, startLauncher, type Launcher, type LauncherSetup } from "../support/launcher";

const QUESTION = "How many days do customers have to return an item?";
const METRICS_TOKEN = "observability-test-metrics-token";

describe("observability of the product as npm start runs it: traces and Prometheus", function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let setup: LauncherSetup;
  let launcher: Launcher;

  before(async function () {
    this.timeout(300_000);
    receiver = await startOtlpReceiver();
    // Short batch delay: spans reach the receiver within a second of ending.
    setup = await launcherSetup({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "200", LOG_LEVEL: "info", METRICS_TOKEN });
    launcher = startLauncher(setup, { detached: true });
    await launcherRunning(launcher);
  });

  after(async () => {
    if (launcher && !hasExited(launcher)) process.kill(-launcher.process.pid!, "SIGKILL");
    for (const { pid } of setup ? processesOf(setup.dataDir) : []) process.kill(pid, "SIGKILL");
    if (setup) rmSync(setup.dataDir, { recursive: true, force: true });
    await receiver?.close();
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed") process.stdout.write(`launcher output:\n${launcher.output().slice(-6000)}\n`);
  });

  /** The trace whose server span handled `POST path` for this turn, once its worker and model spans are in. */
  async function traceOfTurn(turnId: string): Promise<ReceivedSpan[]> {
    let found: ReceivedSpan[] = [];
    await waitFor(
      () => {
        const stage = receiver.spans.find((span) => span.name === "tutor.generate" && span.attributes["skillnet.turn_id"] === turnId && span.endNs > 0n);
        if (!stage) return false;
        found = traceOf(receiver.spans, stage.traceId).spans;
        return found.some((span) => span.name === "socket.deliver first token") && found.some((span) => span.service === "skillnet-offline-model");
      },
      30_000,
      "the turn's spans at the OTLP receiver",
    );
    // Late batches (the job's end, the last commands) arrive within the batch delay.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return traceOf(receiver.spans, found[0]!.traceId).spans;
  }

  it("gives a tutor turn one connected trace: request, enqueue, job, stages, model call, database, Redis, model server, socket", async () => {
    const { token } = await login(setup.baseUrl, "employee@example.com");
    const socket = await connect(setup.baseUrl, token);
    try {
      const received = recordEvents(socket);
      // The first turn opens the session; the second is asked with the socket already in its room, so its first token is delivered live.
      const first = await api(setup.baseUrl, "POST", "/api/v1/chat", { token, body: { message: "Hello!" } });
      expect(first.status, JSON.stringify(first.body)).to.equal(202);
      expect(await join(socket, { sessionId: first.body.session_id })).to.include({ ok: true });
      await waitForTurnEnd(received, first.body.turn_id, 60_000);
      const posted = await api(setup.baseUrl, "POST", "/api/v1/chat", { token, body: { message: QUESTION, session_id: first.body.session_id } });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
      const events = await waitForTurnEnd(received, posted.body.turn_id, 60_000);
      expect(events.at(-1)!.event).to.equal("done");
      expect(
        events.every((event) => !("trace" in event.payload)),
        "the trace context stays between the processes",
      ).to.equal(true);

      const spans = await traceOfTurn(posted.body.turn_id);
      const { roots, orphans } = traceOf(spans, spans[0]!.traceId);
      const named = (name: string | RegExp): ReceivedSpan[] => spans.filter((span) => (typeof name === "string" ? span.name === name : name.test(span.name)));

      // One tree: a single root, the employee's HTTP request, and every other span's parent in the trace.
      expect(orphans.map((span) => `${span.service}:${span.name}`)).to.deep.equal([]);
      expect(roots.map((span) => [span.service, span.kind, span.attributes["http.request.method"] ?? span.attributes["http.method"]])).to.deep.equal([
        ["skillnet-server", 2, "POST"],
      ]);
      expect(new Set(spans.map((span) => span.service))).to.include.members(["skillnet-server", "skillnet-worker", "skillnet-offline-model"]);

      // BullMQ's own spans: the enqueue in the server, the job in the worker.
      expect(named(/^add tutor-generate/).map((span) => [span.service, span.kind])).to.deep.include(["skillnet-server", 4]);
      expect(named(/^process tutor-generate/).map((span) => [span.service, span.kind])).to.deep.include(["skillnet-worker", 5]);

      // The stages, and what retrieval found.
      for (const stage of ["tutor.classify", "tutor.retrieve", "tutor.generate"]) expect(named(stage), stage).to.have.length(1);
      const retrieve = named("tutor.retrieve")[0]!;
      expect(retrieve.attributes["skillnet.retrieval.rung"]).to.be.a("string").and.not.equal("");
      expect(retrieve.attributes["skillnet.retrieval.sources"]).to.be.a("number").above(0);

      // The answer's model call after the GenAI conventions, and the model server's span under its HTTP request.
      const generate = named("tutor.generate")[0]!;
      const modelCall = spans.find((span) => span.attributes["gen_ai.operation.name"] === "chat" && span.parentSpanId === generate.spanId);
      expect(modelCall, "a chat span under the generate stage").to.not.equal(undefined);
      expect(modelCall!.kind).to.equal(3);
      expect(modelCall!.attributes["gen_ai.request.model"]).to.be.a("string").and.not.equal("");
      expect(modelCall!.attributes["gen_ai.usage.input_tokens"]).to.be.a("number").above(0);
      expect(modelCall!.attributes["gen_ai.usage.output_tokens"]).to.be.a("number").above(0);
      expect(modelCall!.attributes["gen_ai.response.time_to_first_chunk"]).to.be.a("number").above(0);
      const modelServer = spans.filter((span) => span.service === "skillnet-offline-model" && span.kind === 2);
      expect(modelServer.length).to.be.above(0);
      const clientSpans = new Map(spans.map((span) => [span.spanId, span]));
      expect(
        modelServer.some((span) => clientSpans.get(span.parentSpanId)?.service === "skillnet-worker"),
        "the model server's span continues the worker's HTTP request",
      ).to.equal(true);

      // Postgres and Redis, from the maintained instrumentations, in both processes.
      const database = spans.filter((span) => span.attributes["db.system"] === "postgresql" || span.attributes["db.system.name"] === "postgresql");
      const redis = spans.filter((span) => span.attributes["db.system"] === "redis" || span.attributes["db.system.name"] === "redis");
      expect(new Set(database.map((span) => span.service))).to.include.members(["skillnet-server", "skillnet-worker"]);
      expect(new Set(redis.map((span) => span.service))).to.include.members(["skillnet-server", "skillnet-worker"]);

      // The first token's delivery, in the server, under the worker's span that streamed it.
      const delivery = named("socket.deliver first token");
      expect(delivery).to.have.length(1);
      expect(delivery[0]!.service).to.equal("skillnet-server");
      expect(clientSpans.get(delivery[0]!.parentSpanId)?.service).to.equal("skillnet-worker");
      expect(delivery[0]!.attributes["skillnet.sockets"]).to.equal(1);

      // No prompt or answer text without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.
      const answer = events
        .filter((event) => event.event === "token")
        .map((event) => event.payload.content as string)
        .join("");
      const quoting = spans.flatMap((span) =>
        Object.entries(span.attributes)
          .filter(([, value]) => JSON.stringify(value).includes("return an item") || JSON.stringify(value).includes(answer.slice(0, 40)))
          .map(([key, value]) => `${span.service}:${span.name}:${key}=${JSON.stringify(value).slice(0, 200)}`),
      );
      expect(quoting, "attributes that quote the question or the answer").to.deep.equal([]);
      expect(receiver.rejected).to.equal(0);

      // The worker's log lines for the turn name the trace.
      const traceId = spans[0]!.traceId;
      const lines = launcher
        .output()
        .split("\n")
        .filter((line) => line.includes(posted.body.turn_id) && line.startsWith("{"));
      expect(
        lines.some((line) => (JSON.parse(line) as { trace_id?: string }).trace_id === traceId),
        "a log line of the turn carries its trace id",
      ).to.equal(true);
    } finally {
      socket.disconnect();
    }
  });
  /**
   * The one trace whose root is the server's span for `method path`, once it holds a span of each
   * of `jobs` (BullMQ's `process <queue>`): checked to be one connected tree across the processes.
   */
  async function traceOfRequest(method: string, path: string, jobs: string[]): Promise<ReceivedSpan[]> {
    const isRoot = (span: ReceivedSpan): boolean =>
      !span.parentSpanId &&
      span.service === "skillnet-server" &&
      span.kind === 2 &&
      (span.attributes["http.request.method"] ?? span.attributes["http.method"]) === method &&
      String(span.attributes["url.path"] ?? span.attributes["http.target"] ?? "").startsWith(path);
    let spans: ReceivedSpan[] = [];
    await waitFor(
      () => {
        const root = receiver.spans.find(isRoot);
        if (!root) return false;
        spans = traceOf(receiver.spans, root.traceId).spans;
        return jobs.every((queue) => spans.some((span) => span.name.startsWith(`process ${queue}`) && span.service === "skillnet-worker"));
      },
      60_000,
      `the trace of ${method} ${path} with ${jobs.join(", ")}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const trace = traceOf(receiver.spans, spans[0]!.traceId);
    expect(
      trace.orphans.map((span) => `${span.service}:${span.name}`),
      `${method} ${path}: every span's parent is in the trace`,
    ).to.deep.equal([]);
    expect(trace.roots.filter(isRoot), `${method} ${path}: one root`).to.have.length(trace.roots.length);
    return trace.spans;
  }

  it("gives an admin turn, the action run it proposed and an upload's ingestion one trace each", async () => {
    const { token, user } = await login(setup.baseUrl, "admin@example.com");
    const socket = await connect(setup.baseUrl, token);
    const admin: Person = { id: user.id, name: "Ana Admin", email: "admin@example.com", token, socket, events: recordEvents(socket) };
    try {
      const proposal = await askAdmin(setup, admin, "assign Returns Essentials to everyone in Sales with a deadline next Friday");
      expect(proposal.pending, proposal.answer?.content).to.include({ tool: "assign_course" });
      const planned = await traceOfRequest("POST", "/api/v1/chat/admin", ["admin-plan"]);
      const plan = planned.find((span) => span.name.startsWith("process admin-plan"))!;
      expect(
        planned.some((span) => span.attributes["gen_ai.operation.name"] === "chat" && span.service === "skillnet-worker"),
        "the assistant's model call",
      ).to.equal(true);
      expect(
        planned.some((span) => span.service === "skillnet-offline-model"),
        "the model server's span",
      ).to.equal(true);
      expect(planned.some((span) => span.attributes["db.system.name"] === "postgresql" && span.service === "skillnet-worker")).to.equal(true);
      expect(plan.attributes["bullmq.job.name"]).to.be.a("string");

      const confirmed = await api(setup.baseUrl, "POST", `/api/v1/admin/actions/${proposal.pending.actionId}/confirm`, { token });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.be.oneOf([200, 202]);
      const done = await waitForAction(setup, admin, proposal.pending.actionId, ["completed", "partial", "failed"], 60_000);
      expect(done.action.status).to.equal("completed");
      const run = await traceOfRequest("POST", `/api/v1/admin/actions/${proposal.pending.actionId}/confirm`, ["admin-actions"]);
      expect(
        run.some((span) => span.name.startsWith("add admin-actions") && span.service === "skillnet-server"),
        "the confirm's enqueue",
      ).to.equal(true);
      expect(run[0]!.traceId).to.not.equal(planned[0]!.traceId);
    } finally {
      socket.disconnect();
    }

    const tag = `trace${Date.now().toString(36)}`;
    const posted = await upload(setup.baseUrl, token, {
      name: `${tag}.html`,
      type: "text/html",
      bytes: makeHtml([{ heading: "Loading dock", body: `The ${tag} dock opens at six; scan every pallet label before moving it.` }]),
    });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    const ingestion = await traceOfRequest("POST", "/api/v1/documents", ["ingest-extract", "ingest-chunk", "ingest-embed"]);
    expect(
      ingestion.some((span) => span.attributes["gen_ai.operation.name"] === "embeddings"),
      "the embedding call",
    ).to.equal(true);
    const document = await api(setup.baseUrl, "GET", `/api/v1/documents/${posted.body.document_id}`, { token });
    expect(document.body.status).to.equal("COMPLETED");
  });

  it("is scraped by a real Prometheus with prometheus.example.yml, which loads the alert rules and answers for the metrics", async function () {
    this.timeout(90_000);
    const dir = mkdtempSync(joinPath(tmpdir(), "skillnet-prometheus-"));
    const port = await findFreePort();
    let prometheus: ChildProcess | undefined;
    let output = "";
    try {
      // The example as shipped, with what a deployment changes: the target, the token file, the rules' path; scraped every second.
      const config = parse(readFileSync("ops/prometheus/prometheus.example.yml", "utf8"));
      writeFileSync(joinPath(dir, "metrics-token"), METRICS_TOKEN);
      config.global.scrape_interval = "1s";
      config.global.evaluation_interval = "1s";
      config.rule_files = [resolve("ops/prometheus/alerts.yml")];
      const job = config.scrape_configs[0];
      expect(job.job_name).to.equal("skillnet-server");
      job.authorization.credentials_file = joinPath(dir, "metrics-token");
      job.static_configs = [{ targets: [new URL(setup.baseUrl).host] }];
      writeFileSync(joinPath(dir, "prometheus.yml"), stringify(config));
      prometheus = spawn(
        "prometheus",
        [`--config.file=${joinPath(dir, "prometheus.yml")}`, `--storage.tsdb.path=${joinPath(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      prometheus.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      prometheus.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      const query = async (promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`).catch(() => null);
        if (!response?.ok) return [];
        return ((await response.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data.result;
      };
      await waitFor(
        async () => {
          if (prometheus!.exitCode !== null) throw new Error(`prometheus exited (${prometheus!.exitCode}):\n${output}`);
          return (await query('up{job="skillnet-server"}')).some((sample) => sample.value[1] === "1");
        },
        60_000,
        "Prometheus's first successful scrape of the server",
      );
      const workers = await query('max by (queue) (skillnet_queue_workers{job="skillnet-server"})');
      expect(workers.find((sample) => sample.metric.queue === "tutor-generate")?.value[1]).to.not.equal(undefined);
      expect(Number(workers.find((sample) => sample.metric.queue === "tutor-generate")!.value[1])).to.be.above(0);
      // The turns of the trace test were counted, and Prometheus read them back.
      const turns = await query('sum(skillnet_tutor_turns_total{job="skillnet-server"})');
      expect(Number(turns[0]?.value[1] ?? 0)).to.be.at.least(2);

      const rules = (await (await fetch(`http://127.0.0.1:${port}/api/v1/rules?type=alert`)).json()) as {
        data: { groups: Array<{ rules: Array<{ name: string; health: string; state: string }> }> };
      };
      const loaded = rules.data.groups.flatMap((group) => group.rules);
      expect(loaded).to.have.length(10);
      await waitFor(
        async () => {
          const now = (await (await fetch(`http://127.0.0.1:${port}/api/v1/rules?type=alert`)).json()) as typeof rules;
          return now.data.groups.flatMap((group) => group.rules).every((rule) => rule.health === "ok");
        },
        15_000,
        "every alert rule evaluated without error",
      );
      // A healthy product: nothing fires (SkillnetNoWorkers would, were the scraped gauges wrong).
      const firing = await query('ALERTS{alertstate="firing"}');
      expect(firing.map((sample) => sample.metric.alertname)).to.deep.equal([]);
    } finally {
      prometheus?.kill("SIGTERM");
      if (prometheus && prometheus.exitCode === null) await new Promise((done) => prometheus!.once("exit", done));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
