/** Entry point of a server process: `node --import tsx server/main.ts`. */
import { ConfigError, getConfig } from "../lib/config";
import { componentLogger } from "../lib/logger";
import { startServer } from "./server";

async function main(): Promise<void> {
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const server = await startServer(config);
  const log = componentLogger("server");
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await server.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  componentLogger("server").fatal({ err: error }, "server failed to start");
  process.exit(1);
});
