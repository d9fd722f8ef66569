/**
 * An OTLP/HTTP trace receiver for tests: what a collector (Jaeger, Tempo, the OpenTelemetry
 * Collector) does with `POST /v1/traces`, decoding the protobuf the product's real exporter sends
 * (@opentelemetry/exporter-trace-otlp-proto) into flat spans a test can query. Only the fields the
 * tests read are declared; protobuf skips the others.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Event events = 11; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const ExportRequest = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: true }).root.lookupType("otlp.ExportTraceServiceRequest");

type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** One received span, flattened: its resource's `service.name` and every attribute by key. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  service: string;
  scope: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  /** Status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

interface DecodedValue {
  string_value?: string;
  bool_value?: boolean;
  int_value?: number | string;
  double_value?: number;
  array_value?: { values?: DecodedValue[] };
  bytes_value?: string;
}

function decodedValue(value: DecodedValue | undefined): AttributeValue {
  if (!value) return null;
  if (value.string_value !== undefined) return value.string_value;
  if (value.bool_value !== undefined) return value.bool_value;
  if (value.int_value !== undefined) return Number(value.int_value);
  if (value.double_value !== undefined) return value.double_value;
  if (value.array_value) return (value.array_value.values ?? []).map(decodedValue);
  return value.bytes_value ?? null;
}

const attributesOf = (list: Array<{ key: string; value?: DecodedValue }> = []): Record<string, AttributeValue> =>
  Object.fromEntries(list.map(({ key, value }) => [key, decodedValue(value)]));

export interface OtlpReceiver {
  /** The OTLP endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Requests that were not valid OTLP protobuf: a test expects none. */
  rejected: number;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { url: "", spans, rejected: 0, close: async () => undefined } as OtlpReceiver;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces" || request.headers["content-type"] !== "application/x-protobuf") {
        receiver.rejected += 1;
        response.writeHead(404).end();
        return;
      }
      try {
        const decoded = ExportRequest.toObject(ExportRequest.decode(Buffer.concat(chunks)), { longs: String, bytes: String }) as {
          resource_spans?: Array<{ resource?: { attributes?: [] }; scope_spans?: Array<{ scope?: { name?: string }; spans?: any[] }> }>;
        };
        for (const resourceSpans of decoded.resource_spans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
          for (const scopeSpans of resourceSpans.scope_spans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                traceId: Buffer.from(span.trace_id ?? "", "base64").toString("hex"),
                spanId: Buffer.from(span.span_id ?? "", "base64").toString("hex"),
                parentSpanId: Buffer.from(span.parent_span_id ?? "", "base64").toString("hex"),
                name: span.name ?? "",
                kind: span.kind ?? 0,
                service,
                scope: scopeSpans.scope?.name ?? "",
                startNs: BigInt(span.start_time_unix_nano ?? 0),
                endNs: BigInt(span.end_time_unix_nano ?? 0),
                attributes: attributesOf(span.attributes),
                status: span.status?.code ?? 0,
              });
            }
          }
        }
        // An empty ExportTraceServiceResponse: full success.
        response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      } catch {
        receiver.rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A trace's spans, and whether each span's parent is among them (one connected tree). */
export function traceOf(spans: ReceivedSpan[], traceId: string): { spans: ReceivedSpan[]; roots: ReceivedSpan[]; orphans: ReceivedSpan[] } {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const ids = new Set(inTrace.map((span) => span.spanId));
  const roots = inTrace.filter((span) => !span.parentSpanId);
  const orphans = inTrace.filter((span) => span.parentSpanId && !ids.has(span.parentSpanId));
  return { spans: inTrace, roots, orphans };
}
