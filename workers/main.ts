/** Entry point of a worker process: `node --import tsx workers/main.ts` (queues from WORKER_QUEUES). */
import { getConfig } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { runUntilSignalled } from "../lib/process-lifecycle";
import { EmbeddingDimensionError } from "./embedding-check";
import { startWorkers } from "./host";

await runUntilSignalled(componentLogger("worker"), () => startWorkers(getConfig()), { graceMs: 30_000, refuseOn: [EmbeddingDimensionError] });
process.stdout.write("READY workers\n");
