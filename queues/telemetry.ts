/**
 * BullMQ's own OpenTelemetry support (bullmq-otel), given to every Queue and Worker when tracing
 * is on: adding a job records a producer span and stores the trace context in the job's options,
 * and the worker that takes it runs the handler inside a consumer span continuing that trace — so
 * the HTTP request, the enqueue, the job and everything the handler does form one trace. Off, no
 * telemetry is passed and BullMQ does no tracing work at all.
 */
import { BullMQOtel } from "bullmq-otel";
import { tracingEnabled } from "../lib/telemetry/settings";

let telemetry: BullMQOtel | undefined;

/** `{ telemetry }` to spread into a Queue's or Worker's options; empty when tracing is off. */
export function queueTelemetry(): { telemetry?: BullMQOtel } {
  if (!tracingEnabled()) return {};
  telemetry ??= new BullMQOtel({ tracerName: "bullmq" });
  return { telemetry };
}
