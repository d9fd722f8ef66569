/**
 * How every long-running entry point (server, worker) lives and dies: refuse to start on bad
 * configuration with the full list of problems, and on SIGINT/SIGTERM close in order within a
 * grace period, then exit. The grace period must stay below the orchestrator's kill timeout
 * (docker compose: `stop_grace_period`, 10 s by default; Kubernetes:
 * `terminationGracePeriodSeconds`, 30 s), so the process ends on its own terms, not by SIGKILL.
 */
import type { Logger } from "pino";
import { ConfigError } from "./config";
import { flushTelemetry } from "./telemetry/shutdown";

export interface Running {
  close(): Promise<void>;
}

export interface LifecycleOptions {
  /** How long closing may take before the process exits anyway; read when the signal comes (config is parsed by then). */
  graceMs: number | (() => number);
  refuseOn?: Array<new (...args: never[]) => Error>;
}

export async function runUntilSignalled<R extends Running>(log: Logger, start: () => Promise<R>, { graceMs, refuseOn = [] }: LifecycleOptions): Promise<R> {
  let running: R;
  try {
    running = await start();
  } catch (error) {
    if (error instanceof ConfigError || refuseOn.some((type) => error instanceof type)) {
      process.stderr.write(`${(error as Error).message}\n`);
      log.fatal({ err: error }, "refused to start");
      process.exit(1);
    }
    log.fatal({ err: error }, "failed to start");
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const grace = typeof graceMs === "function" ? graceMs() : graceMs;
    const started = Date.now();
    log.info({ signal, graceMs: grace }, "shutting down");
    setTimeout(() => {
      log.error({ graceMs: grace }, "shutdown did not finish within the grace period; exiting anyway");
      process.exit(1);
    }, grace).unref();
    try {
      await running.close();
    } catch (error) {
      log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
    log.info({ ms: Date.now() - started }, "shut down");
    await flushTelemetry();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  return running;
}
