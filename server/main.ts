/** Entry point of a server process: `node --import tsx server/main.ts` (compiled: `node dist/server/main.js`). */
import { DatabaseFullError } from "../db/connection-limit";
import { getConfig, warnRetiredVariables } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { runUntilSignalled } from "../lib/process-lifecycle";
import { startServer } from "./server";

const log = componentLogger("server");
warnRetiredVariables(log);
const server = await runUntilSignalled(log, () => startServer(getConfig()), {
  graceMs: () => getConfig().process.SHUTDOWN_GRACE_MS,
  refuseOn: [DatabaseFullError],
});
// The launcher waits for this line; it does not depend on LOG_LEVEL.
process.stdout.write(`READY server ${server.url}\n`);
