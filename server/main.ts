/** Entry point of a server process: `node --import tsx server/main.ts`. */
import { getConfig } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { runUntilSignalled } from "../lib/process-lifecycle";
import { startServer } from "./server";

await runUntilSignalled(componentLogger("server"), () => startServer(getConfig()), { graceMs: 15_000 });
