/**
 * Flushing the spans a process still holds before it exits. The SDK (sdk.ts) may live in another
 * bundle than the program (the compiled preload is its own file), so the two meet on a global.
 */
export const TELEMETRY_SHUTDOWN = Symbol.for("skillnet-chat.telemetry.shutdown");

/** How long an exiting process waits for its last spans to be sent. */
const FLUSH_BOUND_MS = 2_000;

/** Sends the spans not yet exported, within FLUSH_BOUND_MS; does nothing when tracing is off. */
export async function flushTelemetry(): Promise<void> {
  const shutdown = (globalThis as Record<symbol, (() => Promise<void>) | undefined>)[TELEMETRY_SHUTDOWN];
  if (!shutdown) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_BOUND_MS);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
