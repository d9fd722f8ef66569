/**
 * One span per model request, after the OpenTelemetry GenAI semantic conventions: what was asked
 * of which model (`gen_ai.operation.name`, `gen_ai.request.model`, max tokens, temperature), what
 * answered (`gen_ai.response.model`, `gen_ai.usage.input_tokens` / `output_tokens`) and, streamed,
 * how long the first chunk took (`gen_ai.response.time_to_first_chunk`, seconds). The request
 * itself is a child HTTP span (undici's instrumentation), which carries the trace to the model
 * server. Prompts and answers are recorded only with
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (lib/telemetry/settings.ts).
 */
import { captureMessageContent } from "../../lib/telemetry/settings";
import { inSpan, SpanKind, type Span } from "../../lib/telemetry/spans";

export interface ModelRequest {
  operation: "chat" | "embeddings";
  model: string;
  baseURL: string;
  useCase: string;
  maxTokens?: number;
  temperature?: number;
  /** What was sent, recorded only when content capture is on. */
  input: unknown;
}

export interface ModelAnswer {
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** What came back, recorded only when content capture is on. */
  output?: unknown;
}

/** The running call's span: told of the first chunk and of the answer. */
export interface ModelCall {
  firstChunk(): void;
  answered(answer: ModelAnswer): void;
}

export function inModelSpan<T>(request: ModelRequest, fn: (call: ModelCall) => Promise<T>): Promise<T> {
  const server = serverOf(request.baseURL);
  const attributes = {
    "gen_ai.operation.name": request.operation,
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": request.model,
    ...(request.maxTokens !== undefined ? { "gen_ai.request.max_tokens": request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { "gen_ai.request.temperature": request.temperature } : {}),
    ...server,
    "skillnet.llm.use_case": request.useCase,
  };
  return inSpan(`${request.operation} ${request.model}`, { kind: SpanKind.CLIENT, attributes }, (span) => {
    const capture = span.isRecording() && captureMessageContent();
    if (capture) span.setAttribute("gen_ai.input.messages", JSON.stringify(request.input));
    return fn(modelCall(span, capture));
  });
}

function modelCall(span: Span, capture: boolean): ModelCall {
  const started = performance.now();
  let chunked = false;
  return {
    firstChunk() {
      if (chunked) return;
      chunked = true;
      span.setAttribute("gen_ai.response.time_to_first_chunk", (performance.now() - started) / 1000);
    },
    answered(answer) {
      span.setAttributes({
        "gen_ai.response.model": answer.model,
        "gen_ai.usage.input_tokens": answer.promptTokens,
        "gen_ai.usage.output_tokens": answer.completionTokens,
      });
      if (capture && answer.output !== undefined) span.setAttribute("gen_ai.output.messages", JSON.stringify(answer.output));
    },
  };
}

function serverOf(baseURL: string): Record<string, string | number> {
  try {
    const url = new URL(baseURL);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    return { "server.address": url.hostname, "server.port": port };
  } catch {
    return {};
  }
}
