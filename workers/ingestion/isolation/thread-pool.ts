/**
 * Reading uploaded files happens here, off the worker's event loop: in a small pool of worker
 * threads (piscina), each with a heap limit, and each task with a wall-clock limit after which
 * its thread is terminated. A file built to make a parser spin or balloon costs one thread
 * for at most EXTRACT_TIMEOUT_MS and fails with a code; every other job on the worker keeps
 * running, because the event loop they share never blocks.
 */
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { Config } from "../../../lib/config";
import { componentLogger } from "../../../lib/logger";
import { ExtractionError } from "../extract/types";
import type { Outcome } from "./thread-tasks";

export type IsolationSettings = Pick<Config, "EXTRACT_TIMEOUT_MS" | "EXTRACT_MEMORY_MB" | "EXTRACT_THREADS">;

/**
 * Set by the compiled build (scripts/build.ts) to where it put the bundled thread-tasks, relative
 * to the bundle that contains this code. From source it is undefined.
 */
declare const __EXTRACTION_THREAD_ENTRY__: string | undefined;

/**
 * What each thread loads: compiled, the bundled tasks (plain JavaScript, no loader); from source,
 * a JavaScript entry that registers tsx in the thread and then imports the TypeScript tasks.
 */
const ENTRY =
  typeof __EXTRACTION_THREAD_ENTRY__ === "string" ? new URL(__EXTRACTION_THREAD_ENTRY__, import.meta.url) : new URL("./thread-entry.mjs", import.meta.url);

let pool: Piscina | undefined;
let poolKey = "";

function poolFor(settings: IsolationSettings): Piscina {
  const key = `${settings.EXTRACT_THREADS}/${settings.EXTRACT_MEMORY_MB}`;
  if (pool && poolKey === key) return pool;
  void pool?.destroy();
  poolKey = key;
  pool = new Piscina({
    filename: ENTRY.href,
    minThreads: settings.EXTRACT_THREADS,
    maxThreads: settings.EXTRACT_THREADS,
    idleTimeout: 5 * 60_000,
    resourceLimits: { maxOldGenerationSizeMb: settings.EXTRACT_MEMORY_MB },
  });
  // A thread that dies with no task on it (say, at start-up) is reported here; unhandled, it would end the process.
  pool.on("error", (error: unknown) => componentLogger("extraction-threads").error({ err: error }, "extraction thread failed"));
  return pool;
}

/** Terminates the threads (worker shutdown); the next task starts a new pool. */
export async function closeThreadPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

/**
 * Runs a task of thread-tasks.ts in a pool thread. The clock starts when the thread picks the
 * task up. `signal` (the document's own deadline) also stops it.
 */
export async function runInThread<T>(name: "extract" | "chunk", task: Record<string, unknown>, settings: IsolationSettings, signal?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  port1.once("message", () => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, settings.EXTRACT_TIMEOUT_MS);
  });
  const stop = () => controller.abort();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const outcome = (await poolFor(settings).run({ ...task, started: port2 }, { name, transferList: [port2], signal: controller.signal })) as Outcome<T>;
    if (!outcome.ok) throw new ExtractionError(outcome.message, undefined, outcome.code);
    return outcome.value;
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    if (timedOut) {
      throw new ExtractionError(
        `Reading the file took longer than ${formatSeconds(settings.EXTRACT_TIMEOUT_MS)} (EXTRACT_TIMEOUT_MS) and was stopped; split it into smaller documents or ask an operator to raise the limit`,
        error,
        "EXTRACTION_TIMEOUT",
      );
    }
    if ((error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY") {
      throw new ExtractionError(
        `Reading the file needed more than ${settings.EXTRACT_MEMORY_MB} MB of memory (EXTRACT_MEMORY_MB); split it into smaller documents or ask an operator to raise the limit`,
        error,
        "EXTRACTION_TOO_LARGE",
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
    port1.close();
    signal?.removeEventListener("abort", stop);
  }
}

const formatSeconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
