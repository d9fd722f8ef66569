/** Entry point of a worker process: `node --import tsx workers/main.ts` (queues from WORKER_QUEUES). */
import { ConfigError, getConfig } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { EmbeddingDimensionError } from "./embedding-check";
import { startWorkers } from "./host";

async function main(): Promise<void> {
  const log = componentLogger("worker");
  let running;
  try {
    running = await startWorkers(getConfig());
  } catch (error) {
    if (error instanceof ConfigError || error instanceof EmbeddingDimensionError) {
      process.stderr.write(`${error.message}\n`);
      log.fatal({ err: error }, "worker refused to start");
      process.exit(1);
    }
    throw error;
  }
  process.stdout.write("READY workers\n");
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  componentLogger("worker").fatal({ err: error }, "worker failed to start");
  process.exit(1);
});
