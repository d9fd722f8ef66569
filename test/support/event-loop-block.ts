/**
 * The rule every hostile-input test checks: whatever a tenant sends (an import, an upload, an
 * archive, a scan, a report request), no job handler holds the event loop long enough to starve
 * another organisation's work. The test stack runs the server and the workers in the test's own
 * process, so the loop measured here is the one that streams every tenant's answers and renews
 * every BullMQ lock.
 *
 * A timer asks to run every 10 ms; when it runs late, the loop could not run it. The wall-clock
 * lateness alone also counts the time this thread waited for a CPU that other processes held (the
 * test lanes run side by side on two cores), and, on a loaded machine, waits for helper threads
 * (V8's parallel collector) that were themselves starved. So a block is measured as the CPU time
 * the main thread itself spent over the late stretch (`/proc/thread-self/schedstat`, nanoseconds),
 * capped by the lateness: what its own code and collections cost, which no other process's load
 * can stretch — a busy machine makes the work take longer, never makes it more. Where the kernel
 * does not report a thread's CPU time, the process's (`process.cpuUsage`) stands in.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "chai";

/** The bound used by hostile-input tests: far below a BullMQ lock (10 s) and a stall check. */
export const EVENT_LOOP_BLOCK_BOUND_MS = 200;

export interface LoopWatch {
  /** The longest block seen so far, in milliseconds (the thread's own CPU time over it, load from elsewhere left out). */
  longestBlockMs(): number;
  /** The longest wall-clock lateness seen so far, load from other processes included (for reports). */
  longestWallDelayMs(): number;
  /** Stops sampling and returns the longest block, in milliseconds. */
  stop(): number;
}

const RESOLUTION_MS = 10;
const SCHEDSTAT = "/proc/thread-self/schedstat";

/** The calling thread's time on a CPU so far, in ms, or null where the kernel does not report it. */
function threadCpuMs(): number | null {
  try {
    const runNs = Number(readFileSync(SCHEDSTAT, "utf8").split(" ")[0]);
    return Number.isFinite(runNs) ? runNs / 1e6 : null;
  } catch {
    return null;
  }
}

/** The process's CPU time so far (user + system, every thread), in ms. */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * V8's full collection, without starting node with --expose-gc: that flag in `execArgv` would be
 * handed to every worker thread (extraction, import splitting), which refuse it.
 */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Starts sampling the calling thread's event loop (10 ms resolution). */
export function watchEventLoop(): LoopWatch {
  const cpuMs = threadCpuMs() !== null ? () => threadCpuMs() ?? 0 : processCpuMs;
  let last = { at: performance.now(), cpuMs: cpuMs() };
  let longest = 0;
  let longestWall = 0;
  let timer: NodeJS.Timeout | undefined;
  const sample = (): void => {
    const now = { at: performance.now(), cpuMs: cpuMs() };
    const lateMs = now.at - last.at - RESOLUTION_MS;
    if (lateMs > 0) {
      longest = Math.max(longest, Math.min(lateMs, now.cpuMs - last.cpuMs));
      longestWall = Math.max(longestWall, lateMs);
    }
    last = now;
  };
  const schedule = (): void => {
    timer = setTimeout(() => {
      sample();
      schedule();
    }, RESOLUTION_MS);
    timer.unref();
  };
  schedule();
  return {
    longestBlockMs: () => longest,
    longestWallDelayMs: () => longestWall,
    stop() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
        // A block that ended just before stop() has not met the timer yet: measure up to now.
        sample();
      }
      return longest;
    },
  };
}

/**
 * Runs `work` (which sends the hostile input and waits for its outcome) while watching the loop,
 * and fails the test when any block exceeded `boundMs`. Returns what `work` returned. With
 * SKILLNET_LOOP_BLOCK_REPORT naming a file, each measure is appended to it
 * (`what<TAB>block ms<TAB>wall-clock delay ms`), to report the longest block every hostile-input test saw.
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
    // A block is recorded when the sampling timer finally fires, after it: let it fire once more
    // after `work` (stop() also measures up to the moment it is called).
    await new Promise((resolve) => setTimeout(resolve, 3 * RESOLUTION_MS));
  } finally {
    watch.stop();
  }
  const longest = watch.longestBlockMs();
  const report = process.env.SKILLNET_LOOP_BLOCK_REPORT;
  if (report) appendFileSync(report, `${what}\t${Math.round(longest)}\t${Math.round(watch.longestWallDelayMs())}\n`);
  // A refusal the test did not expect fails it with its own reason; an expected one is caught inside `work`.
  if (!outcome.ok) throw outcome.error;
  expect(longest, `${what}: the event loop was blocked for ${Math.round(longest)} ms (bound ${boundMs} ms)`).to.be.at.most(boundMs);
  return outcome.value;
}
