/**
 * How every long-running entry point (server, worker) lives and dies: refuse to start on bad
 * configuration with the full list of problems, and on SIGINT/SIGTERM close in order within a
 * grace period, then exit.
 */
import type { Logger } from "pino";
import { ConfigError } from "./config";

export interface Running {
  close(): Promise<void>;
}

export async function runUntilSignalled<R extends Running>(log: Logger, start: () => Promise<R>, { graceMs, refuseOn = [] }: { graceMs: number; refuseOn?: Array<new (...args: never[]) => Error> }): Promise<R> {
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
    log.info({ signal }, "shutting down");
    setTimeout(() => process.exit(1), graceMs).unref();
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  return running;
}
