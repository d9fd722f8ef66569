/**
 * The Node flags an extraction thread starts with. A worker thread inherits its process's
 * `execArgv` unless told otherwise, and the process's preloads are not the thread's business:
 * the launcher starts the worker with `--import tsx --import launcher/embedded/exit-with-parent.ts`,
 * and in a thread the TypeScript preload cannot load (tsx's hooks are not registered there yet),
 * so every thread died at start. exit-with-parent would be wrong in a thread anyway: it watches
 * the process's stdin and signals the whole process. The thread's own entry loads what it needs
 * (thread-entry.mjs from source, the bundle when compiled), so preloads are dropped and every
 * other flag (source maps, warnings, …) is kept.
 */
const PRELOAD_FLAGS = new Set(["--import", "--require", "-r", "--loader", "--experimental-loader"]);

export function threadExecArgv(processExecArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < processExecArgv.length; i++) {
    const flag = processExecArgv[i]!;
    const name = flag.split("=", 1)[0]!;
    if (!PRELOAD_FLAGS.has(name)) {
      kept.push(flag);
      continue;
    }
    // `--import x` takes the next argument as its value; `--import=x` carries it.
    if (!flag.includes("=")) i++;
  }
  return kept;
}
