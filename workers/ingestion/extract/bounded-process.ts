/**
 * Running a program of the system on a file's bytes, from the extraction thread, with the thread's
 * limits in a form a thread can give another process: a wall-clock limit (killed past it), an
 * address-space and CPU-time limit set by prlimit (so a child whose thread was terminated still
 * dies by itself), a capped output, and a bare environment. Bytes travel through pipes: no
 * temporary files to clean up. OCR (tesseract, pdftoppm) and the legacy Office converters
 * (antiword, xls2csv) run through here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants, accessSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ExtractionError } from "./types";

/** The program's full path, found the way a shell would, or null when it is not installed. */
export function resolveProgram(program: string, path = process.env.PATH ?? ""): string | null {
  const candidates = program.includes("/")
    ? [program]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

const PRLIMIT = "/usr/bin/prlimit";

export interface Bounded {
  stdout: Buffer;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
    child.kill("SIGKILL");
  }
}

/**
 * Runs one program under these limits, `input` on its stdin, collecting stdout (at most
 * `maxOutput` bytes; more fails EXTRACTION_TOO_LARGE with `overflowMessage`).
 */
export function runBounded(
  program: string,
  args: string[],
  input: Buffer,
  memoryMb: number,
  timeoutMs: number,
  maxOutput: number,
  overflowMessage = "OCR produced more output than one page can hold",
): Promise<Bounded> {
  const cpuSeconds = Math.max(1, Math.ceil(timeoutMs / 1000) + 1);
  const limited = resolveProgram(PRLIMIT) !== null;
  const [command, argv] = limited ? [PRLIMIT, [`--as=${memoryMb * 1024 * 1024}`, `--cpu=${cpuSeconds}`, "--", program, ...args]] : [program, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      // Its own process group, so a kill reaches what it started too (a shell's `cat | converter`), not only the leader.
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
      // A bare environment (the worker's secrets are none of the program's business); PATH is the process's, to find the programs it names.
      // HOME names no directory: antiword looks there for its settings first, and reads its system ones without it.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", OMP_THREAD_LIMIT: "1", LC_ALL: "C.UTF-8", HOME: "/nonexistent" },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let overflow = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) {
        overflow = true;
        killGroup(child);
      } else chunks.push(chunk);
    });
    // A child that exits before reading all its input closes the pipe; that is its exit code's story, not ours.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (overflow) {
        reject(new ExtractionError(overflowMessage, undefined, "EXTRACTION_TOO_LARGE"));
        return;
      }
      // prlimit's CPU limit ends a runaway child with SIGXCPU (or SIGKILL past the hard limit): a timeout too.
      resolve({ stdout: Buffer.concat(chunks), code, signal, timedOut: timedOut || signal === "SIGXCPU" });
    });
  });
}
