/**
 * The model call's span with the SDK recording in process (an in-memory exporter): the GenAI
 * attributes, the time to the first chunk, a failed call's status, and prompts and answers only
 * with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. The provider is removed again after,
 * so the rest of the suite runs without the SDK, as the product does by default.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { expect } from "chai";
import { currentTraceparent } from "../../../../lib/telemetry/spans";
import { inModelSpan, type ModelRequest } from "../../../../workers/llm/model-span";

const REQUEST: ModelRequest = {
  operation: "chat",
  model: "qwen2.5:7b",
  baseURL: "http://127.0.0.1:11435/v1",
  useCase: "tutor",
  maxTokens: 512,
  temperature: 0.2,
  input: [{ role: "user", content: "¿Cuántos días tengo para devolver un artículo?" }],
};

describe("model call spans (GenAI conventions)", () => {
  const exporter = new InMemorySpanExporter();
  let provider: NodeTracerProvider;
  const capture = process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;

  before(() => {
    provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
  });
  afterEach(() => {
    exporter.reset();
    if (capture === undefined) delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
    else process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = capture;
  });
  after(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("records model, tokens and time to first chunk, and no text by default", async () => {
    delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
    let traceparent: string | undefined;
    await inModelSpan(REQUEST, async (call) => {
      traceparent = currentTraceparent();
      await new Promise((resolve) => setTimeout(resolve, 5));
      call.firstChunk();
      call.firstChunk();
      call.answered({ model: "qwen2.5:7b-instruct", promptTokens: 120, completionTokens: 42, output: { role: "assistant", content: "30 días" } });
    });
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).to.equal("chat qwen2.5:7b");
    expect(span!.kind).to.equal(2); // CLIENT in the SDK's enum
    expect(span!.attributes).to.deep.include({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "qwen2.5:7b",
      "gen_ai.request.max_tokens": 512,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.response.model": "qwen2.5:7b-instruct",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 42,
      "server.address": "127.0.0.1",
      "server.port": 11435,
      "skillnet.llm.use_case": "tutor",
    });
    expect(span!.attributes["gen_ai.response.time_to_first_chunk"]).to.be.a("number").within(0.004, 1);
    expect(span!.attributes).to.not.have.any.keys("gen_ai.input.messages", "gen_ai.output.messages");
    // The context handed on (to the HTTP request, to the first token's event) is this span's.
    expect(traceparent).to.match(new RegExp(`^00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01$`));
  });

  it("records the messages sent and the answer with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
    await inModelSpan(REQUEST, async (call) =>
      call.answered({ model: "qwen2.5:7b", promptTokens: 1, completionTokens: 1, output: { role: "assistant", content: "30 días" } }),
    );
    const [span] = exporter.getFinishedSpans();
    expect(JSON.parse(String(span!.attributes["gen_ai.input.messages"]))).to.deep.equal(REQUEST.input);
    expect(JSON.parse(String(span!.attributes["gen_ai.output.messages"]))).to.deep.equal({ role: "assistant", content: "30 días" });
  });

  it("marks a failed call with its error code, not its message", async () => {
    const failure = Object.assign(new Error("provider said: the prompt was ¿Cuántos días…"), { code: "LLM_UNAVAILABLE" });
    await inModelSpan(REQUEST, async () => {
      throw failure;
    }).catch(() => undefined);
    const [span] = exporter.getFinishedSpans();
    expect(span!.status).to.deep.equal({ code: 2, message: "LLM_UNAVAILABLE" });
    expect(span!.attributes["error.type"]).to.equal("LLM_UNAVAILABLE");
    expect(JSON.stringify(span!.attributes)).to.not.include("Cuántos");
  });
});
