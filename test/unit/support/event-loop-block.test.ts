/**
 * The event-loop bound of the hostile-input tests counts this process's own work, not other
 * processes' load: a loop held by its own busy code fails it, and a loop that only sleeps passes
 * even while another process takes every cycle of its CPU (the test lanes run side by side on two
 * cores).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { EVENT_LOOP_BLOCK_BOUND_MS, expectNoLongBlock } from "../../support/event-loop-block";

/** The own CPU time of the blocking work: well past the bound. */
const BLOCK_MS = 350;
/** How long the real-time child holds the CPU: past the bound, and within the kernel's real-time share (950 ms a second). */
const HOG_MS = 450;

/** This thread's time on a CPU so far, in ms (the process's where the kernel does not report the thread's). */
function ownCpuMs(): number {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** Work that needs `ms` of this thread's CPU, as a handler's computation does, however long another process's load stretches it. */
function busyFor(ms: number): void {
  const until = ownCpuMs() + ms;
  while (ownCpuMs() < until) {
    // the loop's own work, on the CPU the whole time
  }
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the bound to fail the work, and it passed");
}

/** What a child prints, line by line: `line(pattern)` resolves with the first line that matches. */
function linesOf(child: ChildProcess): { line(pattern: RegExp): Promise<string> } {
  let seen = "";
  const waiting: Array<() => void> = [];
  child.stdout!.on("data", (chunk) => {
    seen += String(chunk);
    for (const check of waiting.splice(0)) check();
  });
  child.on("exit", () => {
    for (const check of waiting.splice(0)) check();
  });
  return {
    line(pattern) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = seen.split("\n").find((l) => pattern.test(l));
          if (found) resolve(found);
          else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`the child ended without printing ${pattern}: ${seen}`));
          else waiting.push(check);
        };
        check();
      });
    },
  };
}

describe("the event-loop block bound (test/support/event-loop-block.ts)", function () {
  this.timeout(20_000);

  it("fails work that keeps the loop busy past the bound", async () => {
    const error = await rejectionOf(expectNoLongBlock("a busy loop", async () => busyFor(BLOCK_MS)));
    expect(error.message).to.match(/a busy loop: the event loop was blocked for \d+ ms \(bound 200 ms\)/);
  });

  it("passes work that stays under the bound", async () => {
    expect(
      await expectNoLongBlock("short slices", async () => {
        for (let slice = 0; slice < 5; slice++) {
          busyFor(40);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return "done";
      }),
    ).to.equal("done");
  });

  it("passes a sleeping process while a real-time child takes every cycle of its CPU, which the wall clock alone would count", async () => {
    // Both pinned to CPU 0; the hog at SCHED_FIFO runs before any ordinary process there until it ends.
    const sleeper = spawn("taskset", ["-c", "0", process.execPath, "--import", "tsx", "test/support/sleeping-loop.ts"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const lines = linesOf(sleeper);
      await lines.line(/^WATCHING$/);
      const hog = spawn("chrt", ["-f", "1", "taskset", "-c", "0", process.execPath, "-e", `const t = Date.now(); while (Date.now() - t < ${HOG_MS}) {}`], {
        stdio: "inherit",
      });
      const [code] = await once(hog, "exit");
      expect(code, "the real-time hog ran (chrt needs root, as the test machines run)").to.equal(0);
      sleeper.stdin!.end();
      const { blockMs, wallDelayMs } = JSON.parse(await lines.line(/^\{/)) as { blockMs: number; wallDelayMs: number };
      expect(wallDelayMs, "the hog delayed the sleeper's loop past the bound by the wall clock").to.be.above(EVENT_LOOP_BLOCK_BOUND_MS);
      expect(blockMs, `its own blocking (wall-clock delay ${Math.round(wallDelayMs)} ms)`).to.be.below(50);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});
