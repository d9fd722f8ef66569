/**
 * The product's own spans — the tutor's stages, model calls, the first token's delivery — through
 * the OpenTelemetry API only. Without the SDK (tracing off) the API's tracer is a no-op: no span
 * is recorded and nothing is exported, so callers need not ask whether tracing is on.
 */
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";

export { SpanKind, type Span };

const TRACER_NAME = "skillnet-chat";

const tracer = () => trace.getTracer(TRACER_NAME);

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent, when it is not the active context (a trace context carried through Redis). */
  parent?: Context;
}

/**
 * Runs `fn` inside a new span, active for everything `fn` awaits (queries, commands, model calls
 * nest under it). A thrown error marks the span failed, with its type, and is rethrown.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), ...spanOptions } = options;
  return tracer().startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      // The error's code or class, never its message: that may quote what the employee typed.
      const type = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : error instanceof Error ? error.name : "error";
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      span.setAttribute("error.type", type);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds what a step found to the span it runs in (none when tracing is off). */
export function annotateSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active trace as a W3C `traceparent` header value, or undefined outside a recorded trace. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a `traceparent` carried from another process names, to parent a span on. */
export function contextFromTraceparent(traceparent: string): Context {
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Ids of the active span for log lines (`trace_id`, `span_id`), or null outside a recorded trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const ids = span.spanContext();
  if (!isSpanContextValid(ids)) return null;
  return { trace_id: ids.traceId, span_id: ids.spanId };
}
