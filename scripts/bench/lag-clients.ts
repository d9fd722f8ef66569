/**
 * The token-lag benchmark's clients, either in the bench process (as every other module's) or
 * spread over child processes. 200–1,000 socket.io-clients in one process on this 2-core machine
 * are themselves a hop: every token is parsed and handled on one event loop next to the POSTs of
 * the turns starting, so a token can wait in the client's socket buffer. Real clients are separate
 * machines; spreading them over processes shows how much of the lag is the measuring side's.
 *
 * As a child (`node --import tsx scripts/bench/lag-clients.ts`, forked with IPC) the module opens
 * its share of the sessions, runs the turns of each round it is sent, and answers with the turn
 * records and its own hop report (event-loop delay, token ages at its socket reads).
 */
import { fork, type ChildProcess } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openSessions, type BenchSession, type TurnRecord } from "./clients";
import type { StampAge } from "./stack";
import { takeStampAges, watchStampAges } from "./stamp-ages.mjs";
import { sleep } from "./stats";

/** One process's event-loop delay in a round, and how old tokens were at each hop it saw (stamp-ages.mjs). */
export interface HopReport {
  role: string;
  eventLoopDelay: { p50: number; p99: number; max: number };
  stampAges: Record<string, StampAge>;
}

export interface LagClients {
  /** How many client processes (1: the bench process itself). */
  readonly processes: number;
  /** The child processes, for the CPU table (none when the clients run in the bench process). */
  readonly children: Array<{ role: string; pid: number }>;
  /** One turn on each of the first `count` sessions, the i-th starting i/count s after the round began. */
  round(count: number): Promise<{ records: TurnRecord[]; hops: HopReport[] }>;
  close(): Promise<void>;
}

const failedTurn = (error: unknown): TurnRecord => ({
  turnId: "",
  posted: 0,
  accepted: 0,
  stages: {},
  tokenLags: [],
  tokens: 0,
  seqIntact: false,
  failed: String(error),
});

/** Watches this process's event loop and socket reads until the returned function is called. */
function probeThisProcess(role: string): () => HopReport {
  watchStampAges();
  takeStampAges();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  return () => {
    loop.disable();
    return { role, eventLoopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 }, stampAges: takeStampAges() };
  };
}

/** Runs the turns of `sessions`, each paired with its global index, spread over one second of `count`. */
async function runTurns(sessions: Array<[number, BenchSession]>, count: number): Promise<TurnRecord[]> {
  return Promise.all(
    sessions.map(async ([index, session]) => {
      await sleep((index / count) * 1000);
      return session.turn().catch(failedTurn);
    }),
  );
}

/** Every client in the bench process. */
export async function localClients(baseUrls: string[], token: string, count: number): Promise<LagClients> {
  const sessions = await openSessions(baseUrls, token, count);
  return {
    processes: 1,
    children: [],
    async round(n) {
      const done = probeThisProcess("bench clients");
      const records = await runTurns(
        sessions.slice(0, n).map((session, i) => [i, session]),
        n,
      );
      return { records, hops: [done()] };
    },
    async close() {
      for (const session of sessions) session.close();
    },
  };
}

type ToChild = { type: "open"; baseUrls: string[]; token: string; indices: number[] } | { type: "round"; count: number } | { type: "close" };
type FromChild = { type: "opened" } | { type: "round"; records: TurnRecord[]; hop: HopReport } | { type: "failed"; error: string };

function ask(child: ChildProcess, message: ToChild): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: FromChild) => {
      child.off("exit", onExit);
      if (reply.type === "failed") reject(new Error(`client process: ${reply.error}`));
      else resolve(reply);
    };
    const onExit = (code: number | null) => {
      child.off("message", onMessage);
      reject(new Error(`client process exited (${code})`));
    };
    child.once("message", onMessage);
    child.once("exit", onExit);
    child.send(message);
  });
}

/** The sessions spread over `processes` child processes: session i lives in process i mod `processes`. */
export async function spreadClients(baseUrls: string[], token: string, count: number, processes: number): Promise<LagClients> {
  const file = fileURLToPath(import.meta.url);
  const children = Array.from({ length: processes }, () => fork(file, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }));
  const close = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.send({ type: "close" } satisfies ToChild);
            setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
          }),
      ),
    );
  };
  try {
    await Promise.all(
      children.map((child, k) =>
        ask(child, { type: "open", baseUrls, token, indices: Array.from({ length: count }, (_, i) => i).filter((i) => i % processes === k) }),
      ),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    processes,
    children: children.map((child, k) => ({ role: `bench clients ${k + 1}/${processes}`, pid: child.pid! })),
    async round(n) {
      const replies = await Promise.all(children.map((child) => ask(child, { type: "round", count: n })));
      const records: TurnRecord[] = [];
      const hops: HopReport[] = [];
      replies.forEach((reply, k) => {
        if (reply.type !== "round") return;
        records.push(...reply.records);
        hops.push({ ...reply.hop, role: `bench clients ${k + 1}/${processes}` });
      });
      return { records, hops };
    },
    close,
  };
}

/** The child's side: its share of the sessions, by global index. */
async function serve(): Promise<void> {
  let sessions: Array<[number, BenchSession]> = [];
  const reply = (message: FromChild) => process.send!(message);
  process.on("message", (message: ToChild) => {
    void (async () => {
      try {
        if (message.type === "open") {
          const opened = await openSessions(message.baseUrls, message.token, message.indices.length);
          sessions = message.indices.map((index, i) => [index, opened[i]!]);
          reply({ type: "opened" });
        } else if (message.type === "round") {
          const done = probeThisProcess("bench clients");
          const records = await runTurns(
            sessions.filter(([index]) => index < message.count),
            message.count,
          );
          reply({ type: "round", records, hop: done() });
        } else {
          for (const [, session] of sessions) session.close();
          process.exit(0);
        }
      } catch (error) {
        reply({ type: "failed", error: String(error) });
      }
    })();
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) void serve();
