/**
 * The OpenTelemetry SDK for one process, started by the preload (register.ts) when tracing is on.
 * Every package here is imported dynamically, so a process without an OTLP endpoint — and the
 * bundles, which keep npm packages external — never load any of it.
 *
 * What it traces with the maintained instrumentations: HTTP in and out (`http` for the server's
 * requests and the model server's, `undici` for the model calls, which the openai client makes
 * with fetch), Koa's routes, every pg query and every ioredis command made inside a trace (not the
 * idle polling of BullMQ's blocking connections, which would be a root trace each). BullMQ traces
 * itself (`telemetry` on each Queue and Worker, bullmq-otel: queues/telemetry.ts); the product's
 * own stages and model calls are spans of ours (lib/telemetry/spans.ts). Export is OTLP over
 * HTTP/protobuf to OTEL_EXPORTER_OTLP_ENDPOINT, with every standard OTEL_* variable honoured by the
 * SDK itself (headers, sampler, batch delays, resource attributes).
 */
import { register } from "node:module";
import type { IncomingMessage } from "node:http";
import { defaultServiceName } from "./settings";
import { TELEMETRY_SHUTDOWN } from "./shutdown";

/** Requests that are not part of any user's work: probes, scrapes and the sockets' long polls. */
const UNTRACED_PATHS = /^\/(metrics|healthz|readyz|socket\.io)(\/|\?|$)/;

/**
 * What a Redis span says of its command: the name and the keys, never the values. The
 * instrumentation's default keeps every argument of EVAL/EVALSHA, which for BullMQ's scripts and
 * ours are job payloads and streamed answers — what employees asked and were told.
 */
export function redisStatement(name: string, args: ReadonlyArray<unknown>): string {
  if (/^(AUTH|HELLO|ACL|CONFIG|MIGRATE)$/i.test(name) || args.length === 0) return name;
  if (/^EVAL/i.test(name)) {
    const keys = Number(args[1]);
    return [name, ...args.slice(2, 2 + (Number.isInteger(keys) ? keys : 0)).map(String)].join(" ");
  }
  return args.length > 1 ? `${name} ${String(args[0])} [${args.length - 1} other arguments]` : `${name} ${String(args[0])}`;
}

export async function startTracing(): Promise<void> {
  // ES modules (and CommonJS ones imported from them) are patched through import-in-the-middle's
  // loader hook, told by the instrumentations which modules to wrap, so no other module pays for it.
  const { createAddHookMessageChannel } = await import("import-in-the-middle");
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);

  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes, detectResources, envDetector, hostDetector },
    { registerInstrumentations },
    { HttpInstrumentation },
    { UndiciInstrumentation },
    { KoaInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/instrumentation"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-undici"),
    import("@opentelemetry/instrumentation-koa"),
    import("@opentelemetry/instrumentation-pg"),
    import("@opentelemetry/instrumentation-ioredis"),
  ]);

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the name taken from the entry point.
  const resource = resourceFromAttributes({ "service.name": defaultServiceName(process.argv[1]), "service.namespace": "skillnet-chat" }).merge(
    detectResources({ detectors: [envDetector, hostDetector] }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // Sets the global tracer provider, the AsyncLocalStorage context manager and W3C trace-context propagation.
  provider.register();

  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? "") }),
      new UndiciInstrumentation(),
      new KoaInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
    ],
  });
  await waitForAllMessagesAcknowledged();

  // Spans still in the batch go out before the process exits (lib/process-lifecycle.ts calls it).
  (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN] = () => provider.shutdown();
}
