/**
 * Whether this process traces, read from the standard OpenTelemetry variables only: tracing is on
 * when an OTLP endpoint is given (`OTEL_EXPORTER_OTLP_ENDPOINT` or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and not switched off (`OTEL_SDK_DISABLED=true`,
 * `OTEL_TRACES_EXPORTER=none`). Off, no SDK module is ever loaded. These are read here rather than
 * in lib/config.ts because the SDK reads them itself, before the product's configuration exists
 * (the preload in register.ts runs ahead of every other module).
 */
type Env = Record<string, string | undefined>;

const isTrue = (value: string | undefined): boolean => value?.trim().toLowerCase() === "true";

export function tracingEnabled(env: Env = process.env): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  if ((env.OTEL_TRACES_EXPORTER ?? "").split(",").some((name) => name.trim() === "none")) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Whether model-call spans carry what was sent and answered (`gen_ai.input.messages`,
 * `gen_ai.output.messages`): off unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`,
 * the GenAI instrumentations' own switch. Questions and answers are what employees typed and read.
 */
export function captureMessageContent(env: Env = process.env): boolean {
  return isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT);
}

/** `service.name` when OTEL_SERVICE_NAME is not set: named after the entry point the process runs. */
export function defaultServiceName(entry: string | undefined): string {
  const path = (entry ?? "").replaceAll("\\", "/");
  if (/(^|\/)server\/main\.[jt]s$/.test(path)) return "skillnet-server";
  if (/(^|\/)workers\/main\.[jt]s$/.test(path)) return "skillnet-worker";
  if (/(^|\/)offline-model\/main\.[jt]s$/.test(path)) return "skillnet-offline-model";
  return "skillnet-chat";
}
