/**
 * What every process is: its mode and how much it logs.
 */
import { z } from "zod";
import { defineSection } from "./settings-section";

/** Its own schema, so the logger can read LOG_LEVEL without parsing every other setting (lib/logger.ts). */
export const logLevelSetting = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").describe("pino level of every process.");

export const processSettings = defineSection({
  environment: {
    NODE_ENV: z.enum(["development", "production", "test"]).default("development").describe("`production` refuses dev-login at start-up."),
    LOG_LEVEL: logLevelSetting,
  },
  why: {
    NODE_ENV: "Set `production` on every real deployment: it refuses dev-login, so a forgotten demo switch cannot open the door.",
    LOG_LEVEL: "Raise to `debug` while chasing a problem, lower to `warn` when log volume costs money.",
  },
  tunables: {
    // The grace sits below both orchestrators' kill timeouts (compose 10 s, Kubernetes 30 s) and above the
    // workers' drain (WORKER_DRAIN_MS + ~2 s), measured by test/workers/worker-shutdown.test.ts.
    SHUTDOWN_GRACE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(8_000)
      .describe(
        "A server or worker still closing this long after SIGTERM exits anyway: keep it below the orchestrator's kill timeout " +
          "(compose 10 s, Kubernetes 30 s).",
      ),
  },
});
