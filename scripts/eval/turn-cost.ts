/**
 * What the questions phase of a run costs in CPU, per turn: this process (server, workers, the
 * offline model and the harness's clients) and the infrastructure's (PGlite, Redis). Unlike
 * latency, CPU time hardly moves when other work shares the machine, so it is the figure to
 * compare two runs by on a busy two-core box. With EVAL_CPU_PROFILE=<file> this process's
 * CPU profile of the same phase is written too (summarise it with scripts/bench/profile-summary.mjs).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { infrastructureProcesses } from "../../test/harness/infrastructure";

/** Linux clock ticks per second (USER_HZ), what /proc/<pid>/stat counts CPU time in. */
const TICKS_PER_SECOND = 100;

export interface TurnCost {
  turns: number;
  /** CPU ms per turn, by process ("this process", "pglite", "redis"). */
  cpuMsPerTurn: Record<string, number>;
}

/** user + system CPU ms of another process, from /proc; undefined where there is no /proc. */
function procCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function snapshot(): Record<string, number> {
  const own = process.cpuUsage();
  const figures: Record<string, number> = { "this process": (own.user + own.system) / 1000 };
  for (const { name, pid } of infrastructureProcesses()) {
    const ms = procCpuMs(pid);
    if (ms !== undefined) figures[name] = ms;
  }
  return figures;
}

/** Runs `phase` (which asks `turns` questions) and returns its result with the CPU it cost per turn. */
export async function measureTurns<T>(turns: number, phase: () => Promise<T>): Promise<{ result: T; cost: TurnCost }> {
  const profileTo = process.env.EVAL_CPU_PROFILE;
  const session = profileTo ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const before = snapshot();
  const result = await phase();
  const after = snapshot();
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(profileTo!, JSON.stringify(profile));
    session.disconnect();
  }
  const cpuMsPerTurn = Object.fromEntries(
    Object.keys(after)
      .filter((name) => before[name] !== undefined)
      .map((name) => [name, Math.round((10 * (after[name]! - before[name]!)) / Math.max(1, turns)) / 10]),
  );
  return { result, cost: { turns, cpuMsPerTurn } };
}
