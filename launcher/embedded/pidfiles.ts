/**
 * Which processes a launcher started, kept in `<DATA_DIR>/run/<name>.pid` as `{pid, marker}`
 * (or a bare pid written by the program itself, such as redis-server's `--pidfile`).
 * Children stop themselves when the launcher dies (exit-with-parent, watchdog), so this is the
 * second line: the next `npm start` on the same data dir finds any process that still outlived
 * its launcher (the command line still names what was started), stops it, and can then take
 * the ports again instead of refusing with "port busy". A pid that now belongs to something
 * else (the command line does not match) is left alone.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface PidRecord {
  pid: number;
  /** A piece of the process's command line that identifies it (script path, program name). */
  marker: string;
}

const runDir = (dataDir: string): string => join(dataDir, "run");

export function recordPid(dataDir: string, name: string, record: PidRecord): void {
  mkdirSync(runDir(dataDir), { recursive: true });
  writeFileSync(join(runDir(dataDir), `${name}.pid`), JSON.stringify(record));
}

/** The command line of a live process, or undefined when there is none with that pid. */
export function commandLineOf(pid: number): string | undefined {
  const result = spawnSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" });
  const line = result.stdout?.trim();
  return result.status === 0 && line ? line : undefined;
}

/** Stops every recorded process that is still running what was recorded; returns what it stopped. */
export async function stopStaleProcesses(dataDir: string, log: (line: string) => void): Promise<string[]> {
  let files: string[];
  try {
    files = readdirSync(runDir(dataDir)).filter((file) => file.endsWith(".pid"));
  } catch {
    return [];
  }
  const stopped: string[] = [];
  for (const file of files) {
    const path = join(runDir(dataDir), file);
    const record = parseRecord(readFileSync(path, "utf8"), file.slice(0, -4));
    const commandLine = record && record.pid !== process.pid ? commandLineOf(record.pid) : undefined;
    if (record && commandLine?.includes(record.marker)) {
      log(`› stopping a ${file.slice(0, -4)} left running by an earlier launcher (pid ${record.pid}: ${commandLine})`);
      await stopProcess(record.pid);
      stopped.push(file.slice(0, -4));
    }
    rmSync(path, { force: true });
  }
  return stopped;
}

/** `{pid, marker}` as recordPid writes it, or a bare pid (a program's own pidfile, named after the program). */
function parseRecord(text: string, name: string): PidRecord | undefined {
  if (/^\s*\d+\s*$/.test(text)) return { pid: Number(text), marker: name };
  try {
    const parsed = JSON.parse(text) as Partial<PidRecord>;
    return Number.isInteger(parsed.pid) && typeof parsed.marker === "string" && parsed.marker ? (parsed as PidRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  const alive = (): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) process.kill(pid, "SIGKILL");
}
