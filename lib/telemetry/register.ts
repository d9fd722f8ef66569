/**
 * The tracing preload: `node --import <this> <entry>` (the launcher and the image start every
 * process so; compiled, dist/telemetry/register.js). It must run before anything imports pg,
 * ioredis, koa or http, which is what a preload guarantees and an import inside the program cannot
 * (ES modules are all linked before the first one runs). Off — no OTLP endpoint set — it does
 * nothing more than read the environment: the SDK is imported only when tracing is on.
 */
import { tracingEnabled } from "./settings";

if (tracingEnabled()) {
  const { startTracing } = await import("./sdk");
  await startTracing();
}
