/**
 * A process whose event loop only sleeps, watched by watchEventLoop (event-loop-block.ts), for
 * test/unit/support/event-loop-block.test.ts to starve of CPU from another process: it prints
 * WATCHING once the watch runs, sleeps until its standard input closes (the test closes it once
 * the starving is over), then prints `{"blockMs": …, "wallDelayMs": …}` and exits.
 */
import { watchEventLoop } from "./event-loop-block";

const watch = watchEventLoop();
process.stdout.write("WATCHING\n");
process.stdin.resume();
process.stdin.on("end", () => {
  // One more sampling period, so the timer has fired after the last of the starving.
  setTimeout(() => {
    const blockMs = watch.stop();
    process.stdout.write(`${JSON.stringify({ blockMs, wallDelayMs: watch.longestWallDelayMs() })}\n`);
    process.exit(0);
  }, 20);
});
