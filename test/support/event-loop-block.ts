/**
 * The rule every hostile-input test checks: whatever a tenant sends (an import, an upload, an
 * archive, a scan, a report request), no job handler holds the event loop long enough to starve
 * another organisation's work. The test stack runs the server and the workers in the test's own
 * process, so the loop measured here is the one that streams every tenant's answers and renews
 * every BullMQ lock.
 *
 * `perf_hooks.monitorEventLoopDelay` samples the loop from a libuv timer in native code: its
 * maximum is how late the timer fired, i.e. the longest stretch the loop could not run anything.
 */
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "chai";

/** The bound used by hostile-input tests: far below a BullMQ lock (10 s) and a stall check. */
export const EVENT_LOOP_BLOCK_BOUND_MS = 200;

export interface LoopWatch {
  /** The longest block seen so far, in milliseconds. */
  longestBlockMs(): number;
  /** Stops sampling and returns the longest block, in milliseconds. */
  stop(): number;
}

const RESOLUTION_MS = 10;

/**
 * V8's full collection, without starting node with --expose-gc: that flag in `execArgv` would be
 * handed to every worker thread (extraction, import splitting), which refuse it.
 */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Starts sampling this process's event loop (10 ms resolution). */
export function watchEventLoop(): LoopWatch {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let stopped = false;
  const longest = () => histogram.max / 1e6;
  return {
    longestBlockMs: longest,
    stop() {
      if (!stopped) histogram.disable();
      stopped = true;
      return longest();
    },
  };
}

/**
 * Runs `work` (which sends the hostile input and waits for its outcome) while watching the loop,
 * and fails the test when any block exceeded `boundMs`. Returns what `work` returned. With
 * SKILLNET_LOOP_BLOCK_REPORT naming a file, each measure is appended to it (`what<TAB>ms`), to
 * report the longest block every hostile-input test saw.
 */
export async function expectNoLongBlock<T>(what: string, work: () => Promise<T>, boundMs = EVENT_LOOP_BLOCK_BOUND_MS): Promise<T> {
  // The suite runs a thousand tests in one process: a full collection owed by earlier suites'
  // garbage must not be billed to this input.
  collectGarbage();
  const watch = watchEventLoop();
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await work() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  try {
    // A block is recorded when the sampling timer finally fires, after it: one that ends `work`
    // (a synchronous stretch just before it resolves) would be missed if sampling stopped at once.
    await new Promise((resolve) => setTimeout(resolve, 3 * RESOLUTION_MS));
  } finally {
    watch.stop();
  }
  const longest = watch.longestBlockMs();
  const report = process.env.SKILLNET_LOOP_BLOCK_REPORT;
  if (report) appendFileSync(report, `${what}\t${Math.round(longest)}\n`);
  // A refusal the test did not expect fails it with its own reason; an expected one is caught inside `work`.
  if (!outcome.ok) throw outcome.error;
  expect(longest, `${what}: the event loop was blocked for ${Math.round(longest)} ms (bound ${boundMs} ms)`).to.be.at.most(boundMs);
  return outcome.value;
}
