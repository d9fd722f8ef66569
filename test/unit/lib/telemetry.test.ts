/**
 * The telemetry module's decisions that need no running stack: when tracing is on, what each
 * process is called, and what a Redis span may say of a command. The traces themselves are tested
 * end to end in test/e2e/observability.test.ts; the compiled preload in test/scripts/build.test.ts.
 */
import { expect } from "chai";
import { redisStatement } from "../../../lib/telemetry/sdk";
import { captureMessageContent, defaultServiceName, tracingEnabled } from "../../../lib/telemetry/settings";
import { activeTraceIds, currentTraceparent, inSpan } from "../../../lib/telemetry/spans";

describe("lib/telemetry", () => {
  it("traces only with an OTLP endpoint, and not when switched off", () => {
    expect(tracingEnabled({})).to.equal(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).to.equal(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).to.equal(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).to.equal(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" })).to.equal(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).to.equal(false);
  });

  it("records prompts and answers only when asked to", () => {
    expect(captureMessageContent({})).to.equal(false);
    expect(captureMessageContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "yes" })).to.equal(false);
    expect(captureMessageContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" })).to.equal(true);
  });

  it("names each process after its entry point, under tsx and compiled", () => {
    expect(defaultServiceName("/app/server/main.ts")).to.equal("skillnet-server");
    expect(defaultServiceName("/app/dist/server/main.js")).to.equal("skillnet-server");
    expect(defaultServiceName("/app/dist/workers/main.js")).to.equal("skillnet-worker");
    expect(defaultServiceName("offline-model/main.ts")).to.equal("skillnet-offline-model");
    expect(defaultServiceName("/app/dist/ops/cli/prepare-database-cli.js")).to.equal("skillnet-chat");
    expect(defaultServiceName(undefined)).to.equal("skillnet-chat");
  });

  it("keeps Redis values out of spans: the command and its keys only", () => {
    // BullMQ's addJob script: the sha, the number of keys, the keys, then the job's data.
    const addJob = ["0123abcd", "2", "skillnet:tutor-generate:wait", "skillnet:tutor-generate:id", '{"message":"my salary question"}'];
    expect(redisStatement("evalsha", addJob)).to.equal("evalsha skillnet:tutor-generate:wait skillnet:tutor-generate:id");
    expect(redisStatement("publish", ["skillnet:turn-events", '[{"data":{"content":"the answer"}}]'])).to.equal(
      "publish skillnet:turn-events [1 other arguments]",
    );
    expect(redisStatement("get", ["session:1:latest-turn"])).to.equal("get session:1:latest-turn");
    expect(redisStatement("auth", ["default", "s3cret"])).to.equal("auth");
    expect(redisStatement("ping", [])).to.equal("ping");
  });

  it("costs no span, context or log field while the SDK is not loaded", async () => {
    const seen = await inSpan("tutor.classify", { attributes: { "skillnet.stage": "classify" } }, async (span) => ({
      recording: span.isRecording(),
      traceparent: currentTraceparent(),
      ids: activeTraceIds(),
    }));
    expect(seen).to.deep.equal({ recording: false, traceparent: undefined, ids: null });
    const failing = inSpan("tutor.generate", {}, async () => {
      throw new TypeError("boom");
    });
    await failing.then(
      () => expect.fail("the error must pass through"),
      (error: unknown) => expect(error).to.be.instanceOf(TypeError),
    );
  });
});
