/**
 * Runs the offline model server as its own process, so the app talks to it over HTTP exactly as it
 * would to a real provider. Prints `READY <url>` on stdout once listening so a parent process can
 * wait for that line instead of polling the port.
 *
 * Env: EMBEDDED_LLM_PORT (default 11435; the launcher's own setting, which `npm start` passes it) and HOST
 * (default 127.0.0.1; `npm start` passes loopback).
 */
import { componentLogger } from "../lib/logger";
import { flushTelemetry } from "../lib/telemetry/shutdown";
import { createOfflineResponder } from "./offline-responder";
import { startLlmServer } from "./protocol";

const log = componentLogger("offline-llm");

async function main(): Promise<void> {
  const port = Number(process.env.EMBEDDED_LLM_PORT ?? 11435);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`EMBEDDED_LLM_PORT must be a port number, got "${process.env.EMBEDDED_LLM_PORT}"`);
  const host = process.env.HOST || "127.0.0.1";
  const server = await startLlmServer({ port, host, responder: createOfflineResponder(), log });
  log.info({ url: server.url }, "offline LLM server listening");
  process.stdout.write(`READY ${server.url}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "offline LLM server stopping");
    server
      .close()
      .then(flushTelemetry)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, "offline LLM server did not close cleanly");
          process.exit(1);
        },
      );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  log.fatal({ err: error }, "offline LLM server failed to start");
  process.exitCode = 1;
});
