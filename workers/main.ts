/**
 * Entry point of a worker process: `node --import tsx workers/main.ts` (compiled:
 * `node dist/workers/main.js`), serving the queues named by WORKER_QUEUES. On SIGTERM it stops
 * taking jobs, lets running ones finish for WORKER_DRAIN_MS (a constant, workers/settings.ts) and hands the rest back (host.ts).
 */
import { DatabaseFullError } from "../db/connection-limit";
import { getConfig, warnRetiredVariables } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { runUntilSignalled } from "../lib/process-lifecycle";
import { EmbeddingDimensionError } from "./embedding-check";
import { startWorkers } from "./host";
import { ExtractionThreadsUnavailable } from "./ingestion/isolation";

const log = componentLogger("worker");
warnRetiredVariables(log);
await runUntilSignalled(log, () => startWorkers(getConfig()), {
  graceMs: () => getConfig().process.SHUTDOWN_GRACE_MS,
  refuseOn: [EmbeddingDimensionError, ExtractionThreadsUnavailable, DatabaseFullError],
});
process.stdout.write("READY workers\n");
