/**
 * OpenTelemetry traces of the product as `npm start` runs it: the launcher's separate server,
 * worker and offline-model processes, each loading the tracing preload (lib/telemetry/register.ts),
 * export with the real OTLP/HTTP protobuf exporter to a receiver that decodes what arrives
 * (test/harness/otlp-receiver.ts). A tutor turn must come back as one connected trace across the
 * three processes: the HTTP request, BullMQ's enqueue and job, the stages with what retrieval found,
 * the model call after the GenAI conventions, Postgres and Redis calls, the model server's handling
 * of the request, and the server's delivery of the first token over the socket. The stack starts
 * once; the Prometheus scrape test (test/ops/prometheus.test.ts) shares nothing with it.
 */
import { rmSync } from "node:fs";
import { expect } from "chai";
import { startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from "../harness/otlp-receiver";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd } from "../support/client";
import { hasExited, launcherRunning, launcherSetup, processesOf, startLauncher, type Launcher, type LauncherSetup } from "../support/launcher";

const QUESTION = "How many days do customers have to return an item?";

describe("traces across server, worker and model server (OTLP)", function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let setup: LauncherSetup;
  let launcher: Launcher;

  before(async function () {
    this.timeout(300_000);
    receiver = await startOtlpReceiver();
    // Short batch delay: spans reach the receiver within a second of ending.
    setup = await launcherSetup({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "200", LOG_LEVEL: "info" });
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
});
