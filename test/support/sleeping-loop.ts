/**
 * A process whose event loop only sleeps, watched by watchEventLoop (event-loop-block.ts), for
 * test/unit/support/event-loop-block.test.ts to starve of CPU from another process: it prints
 * WATCHING once the watch runs, sleeps for the milliseconds given, then prints
 * `{"blockMs": …, "wallDelayMs": …}` and exits.
 */
import { watchEventLoop } from "./event-loop-block";

const sleepMs = Number(process.argv[2] ?? 1000);
const watch = watchEventLoop();
process.stdout.write("WATCHING\n");
setTimeout(() => {
  const blockMs = watch.stop();
  process.stdout.write(`${JSON.stringify({ blockMs, wallDelayMs: watch.longestWallDelayMs() })}\n`);
}, sleepMs);
