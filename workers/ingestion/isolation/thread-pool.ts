/**
 * Reading uploaded files happens here, off the worker's event loop: in a small pool of worker
 * threads (piscina), each with a heap limit, and each task with a wall-clock limit after which
 * its thread is terminated. A file built to make a parser spin or balloon costs one thread
 * for at most EXTRACT_TIMEOUT_MS and fails with a code; every other job on the worker keeps
 * running, because the event loop they share never blocks.
 *
 * A thread that dies for a reason that is not the file's (it cannot start, it crashes) fails
 * its task with ExtractionThreadError, which the job retries; a pool whose thread died at start
 * is retired at once, because piscina would otherwise leave the next tasks waiting forever for
 * a thread that never comes.
 */
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { Logger } from "pino";
import type { Config } from "../../../lib/config";
import { ExtractionError } from "../extract/types";
import { threadExecArgv } from "./thread-flags";
import type { Outcome, ThreadSignal } from "./thread-tasks";

export type IsolationSettings = Pick<Config["ingestion"], "EXTRACT_TIMEOUT_MS" | "EXTRACT_MEMORY_MB" | "EXTRACT_THREADS">;

/**
 * Set by the compiled build (scripts/build.ts) to where it put the bundled thread-tasks, relative
 * to the bundle that contains this code. From source it is undefined.
 */
declare const __EXTRACTION_THREAD_ENTRY__: string | undefined;

/**
 * What each thread loads: compiled, the bundled tasks (plain JavaScript, no loader); from source,
 * a JavaScript entry that registers tsx in the thread and then imports the TypeScript tasks.
 */
const BUILT_IN_ENTRY =
  typeof __EXTRACTION_THREAD_ENTRY__ === "string" ? new URL(__EXTRACTION_THREAD_ENTRY__, import.meta.url) : new URL("./thread-entry.mjs", import.meta.url);

/** A thread failed for a reason of ours, not the file's: it could not start, or it crashed. Worth retrying. */
export class ExtractionThreadError extends Error {
  readonly code = "EXTRACTION_THREAD_FAILED";
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "ExtractionThreadError";
  }
}

/** No extraction thread answers at all: the worker refuses to start rather than take uploads it cannot read. */
export class ExtractionThreadsUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "ExtractionThreadsUnavailable";
  }
}

let entry = BUILT_IN_ENTRY;
let pool: Piscina | undefined;
let poolKey = "";
/** Why a retired pool was retired: its tasks then fail with piscina's "Terminating worker thread", which says nothing. */
const retiredBecause = new WeakMap<Piscina, unknown>();

/**
 * Points new pools at another thread file (undefined: the built-in one). Tests use it to run
 * threads that cannot start or that crash, which no real file can make happen.
 */
export async function useThreadEntry(url: URL | undefined): Promise<void> {
  await closeThreadPool();
  entry = url ?? BUILT_IN_ENTRY;
}

/** `log` is the worker process's own (not a job's): a thread failing outside a task belongs to no job. */
function poolFor(settings: IsolationSettings, log: Logger): Piscina {
  const key = `${settings.EXTRACT_THREADS}/${settings.EXTRACT_MEMORY_MB}`;
  if (pool && poolKey === key) return pool;
  void pool?.destroy();
  poolKey = key;
  const created = new Piscina({
    filename: entry.href,
    execArgv: threadExecArgv(process.execArgv),
    minThreads: settings.EXTRACT_THREADS,
    maxThreads: settings.EXTRACT_THREADS,
    idleTimeout: 5 * 60_000,
    resourceLimits: { maxOldGenerationSizeMb: settings.EXTRACT_MEMORY_MB },
  });
  // A thread that dies with no task on it (at start-up, say) is reported here; unhandled, it
  // would end the process. Its pool is retired: the tasks waiting in it fail (and are retried
  // by their jobs) instead of waiting for a thread piscina will not start again.
  created.on("error", (error: unknown) => {
    log.child({ component: "extraction-threads" }).error({ err: error }, "extraction thread failed outside a task; starting a new pool for the next task");
    if (pool === created) pool = undefined;
    retiredBecause.set(created, error);
    created.destroy().catch(() => undefined);
  });
  pool = created;
  return created;
}

/** Terminates the threads (worker shutdown); the next task starts a new pool. */
export async function closeThreadPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

/**
 * Start-up check: a thread starts and answers within `timeoutMs`. Run before the worker says it
 * is ready, so a pool that cannot start a thread (a loader flag a thread cannot use, a missing
 * bundle) stops the worker with the reason instead of leaving every upload in PROCESSING.
 */
export async function probeThreadPool(settings: IsolationSettings, timeoutMs: number, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const controller = new AbortController();
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no thread answered within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const probed = poolFor(settings, log);
    const answer = await Promise.race([probed.run({}, { name: "ping", signal: controller.signal }).catch((error) => failureOf(probed, error)), timeout]);
    if (answer !== "pong") throw new Error(`the thread answered ${JSON.stringify(answer)} instead of "pong"`);
  } catch (error) {
    await closeThreadPool();
    throw new ExtractionThreadsUnavailable(
      `Extraction threads cannot start (${(error as Error).message}; thread file ${entry.href}, flags ${JSON.stringify(threadExecArgv(process.execArgv))}): ` +
        "this worker could not read any uploaded document, so it refuses to start.",
      error,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** How long a task waited for a free thread, and how long it then ran in it (ms); filled in as the task goes. */
export interface ThreadTiming {
  waitMs: number;
  runMs: number;
}

/**
 * Gives every thread of the pool the warm-up task (warm-up.ts) at once, one each, so the first
 * uploads find pdf.js and the tokenizer loaded and optimised. Not awaited by start-up: a task
 * that arrives meanwhile waits for the thread like any other. A warm-up that fails (the pool
 * was closed, the thread crashed) is only logged: the upload that comes next meets the same
 * failure and reports it through its own job.
 */
export function warmThreadPool(settings: IsolationSettings, task: Record<string, unknown>, log: Logger): Promise<void> {
  const warming = poolFor(settings, log);
  const started = performance.now();
  const threads = Array.from({ length: settings.EXTRACT_THREADS }, () => warming.run(task, { name: "warm" }));
  return Promise.all(threads).then(
    () => log.debug({ component: "extraction-threads", ms: Math.round(performance.now() - started) }, "extraction threads warm"),
    (error: unknown) => log.warn({ component: "extraction-threads", err: error }, "extraction threads could not warm up"),
  );
}

/**
 * Runs a task of thread-tasks.ts in a pool thread. The clock starts when the thread picks the
 * task up. `signal` (the document's own deadline) also stops it. `timing`, when given, receives
 * the task's wait and run time, so a stage can tell waiting for the thread from reading.
 */
export async function runInThread<T>(
  name: "extract" | "chunk" | "splitImport",
  task: Record<string, unknown>,
  settings: IsolationSettings,
  log: Logger,
  signal?: AbortSignal,
  timing?: ThreadTiming,
): Promise<T> {
  const controller = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const queuedAt = performance.now();
  let startedAt: number | undefined;
  /** Which limit the clock runs on: EXTRACT_TIMEOUT_MS, or the OCR budget once the task said it needs OCR. */
  let limit = { name: "EXTRACT_TIMEOUT_MS", ms: settings.EXTRACT_TIMEOUT_MS };
  const startClock = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ms);
  };
  port1.on("message", (signal: ThreadSignal) => {
    if (signal.kind === "started") {
      startedAt = performance.now();
      startClock(settings.EXTRACT_TIMEOUT_MS);
    } else {
      limit = { name: "OCR_TIMEOUT_MS", ms: signal.ms };
      startClock(signal.ms);
    }
  });
  const stop = () => controller.abort();
  signal?.addEventListener("abort", stop, { once: true });
  const used = poolFor(settings, log);
  try {
    const outcome = (await used.run({ ...task, started: port2 }, { name, transferList: [port2], signal: controller.signal })) as Outcome<T>;
    if (!outcome.ok) throw new ExtractionError(outcome.message, undefined, outcome.code);
    return outcome.value;
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    // The document's own deadline stopped it: the stage reports that, not a thread failure.
    if (signal?.aborted) throw error;
    if (timedOut) {
      throw new ExtractionError(
        `Reading the file took longer than ${formatSeconds(limit.ms)} (${limit.name}) and was stopped; split it into smaller documents or ask an operator to raise the limit`,
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
    // Anything else is the thread's failure (it could not start, it crashed, its pool was retired), not the file's.
    const cause = retiredBecause.get(used) ?? error;
    throw new ExtractionThreadError(`An extraction thread failed: ${(cause as Error)?.message ?? String(cause)}`, cause);
  } finally {
    if (timing) {
      const ended = performance.now();
      timing.waitMs = (startedAt ?? ended) - queuedAt;
      timing.runMs = startedAt === undefined ? 0 : ended - startedAt;
    }
    clearTimeout(timer);
    port1.close();
    signal?.removeEventListener("abort", stop);
  }
}

/** A probe's failure, with the reason its pool was retired when that is what failed it. */
function failureOf(used: Piscina, error: unknown): never {
  throw retiredBecause.get(used) ?? error;
}

const formatSeconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
