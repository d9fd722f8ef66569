/**
 * Starts a helper process (embedded Postgres, Redis, offline model, server, worker) and waits
 * until it says it is ready, so the launcher and the test harness bring parts up in order.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createServer } from "node:net";

export interface ManagedChild {
  name: string;
  process: ChildProcess;
  /** Sends SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnReadyOptions extends SpawnOptions {
  name: string;
  /** A line on stdout or stderr that means "ready"; the match is returned. */
  readyPattern: RegExp;
  timeoutMs?: number;
  /** Where the child's output goes once it is ready (default: discarded). */
  onOutput?: (line: string) => void;
}

export async function spawnUntilReady(
  command: string,
  args: string[],
  { name, readyPattern, timeoutMs = 60_000, onOutput, ...options }: SpawnReadyOptions,
): Promise<{ child: ManagedChild; match: RegExpMatchArray }> {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], ...options });
  const recent: string[] = [];

  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`${name} did not become ready within ${timeoutMs} ms`)), timeoutMs);
    function finish(error: Error | null, result?: RegExpMatchArray): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        child.kill("SIGKILL");
        reject(new Error(`${error.message}\n--- last output of ${name} ---\n${recent.join("\n")}`));
      } else resolve(result!);
    }
    const onLine = (line: string): void => {
      if (!settled) {
        recent.push(line);
        if (recent.length > 40) recent.shift();
        const found = line.match(readyPattern);
        if (found) finish(null, found);
      } else onOutput?.(line);
    };
    forEachLine(child.stdout!, onLine);
    forEachLine(child.stderr!, onLine);
    child.once("error", (error) => finish(error));
    child.once("exit", (code, signal) => finish(new Error(`${name} exited early (code ${code}, signal ${signal})`)));
  });

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    match,
    child: {
      name,
      process: child,
      async stop(graceMs = 10_000) {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      },
    },
  };
}

function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffer += chunk;
    let index: number;
    while ((index = buffer.indexOf("\n")) >= 0) {
      onLine(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
    }
  });
}

/** A TCP port nobody listens on right now. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when something accepts TCP connections on the port. */
export async function isPortInUse(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}
