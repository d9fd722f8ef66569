/**
 * Measure 6, memory: server RSS before and with N idle sockets (connected, each joined to its
 * own session), and worker RSS across many turns with an instant model — sampled as the turns
 * run, so growth shows as a slope rather than one number.
 */
import { connectSocket, devLogin, openSessions } from "./clients";
import type { BenchSettings } from "./settings";
import { processUsage, startBenchStack } from "./stack";
import { fmt, pool, sleep, table } from "./stats";

export const memoryModule = {
  name: "memory",
  title: "6. Memory",
  async run(settings: BenchSettings): Promise<string> {
    const stack = await startBenchStack({ env: { WORKER_CONCURRENCY: "8" } });
    try {
      const baseUrl = stack.servers[0]!;
      const server = stack.processes.find((p) => p.role === "server")!;
      const worker = stack.processes.find((p) => p.role === "worker")!;
      const token = await devLogin(baseUrl);
      await stack.setModel({ tokens: 20, intervalMs: 0 });
      // Warm the server up (JIT, pools) before the baseline.
      const warm = await openSessions([baseUrl], token, 4);
      for (const session of warm) session.close();
      await sleep(1_000);
      const serverBefore = processUsage(server.pid).rssMb;
      const sockets = await pool(settings.idleSockets, 50, () => connectSocket(baseUrl, token));
      await sleep(2_000);
      const serverWith = processUsage(server.pid).rssMb;
      for (const socket of sockets) socket.disconnect();
      await sleep(2_000);
      const serverAfter = processUsage(server.pid).rssMb;

      // Worker: N turns from 16 sessions, RSS sampled at each tenth.
      const sessions = await openSessions([baseUrl], token, 16);
      const samples: Array<[number, number]> = [[0, processUsage(worker.pid).rssMb]];
      const step = Math.max(1, Math.floor(settings.workerTurns / 10));
      let done = 0;
      let failed = 0;
      const started = performance.now();
      await Promise.all(
        sessions.map(async (session) => {
          while (done < settings.workerTurns) {
            const record = await session.turn();
            if (record.failed) failed++;
            done++;
            if (done % step === 0) samples.push([done, processUsage(worker.pid).rssMb]);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      for (const session of sessions) session.close();
      const firstHalf = samples.filter(([turns]) => turns > 0 && turns <= settings.workerTurns / 2).map(([, rss]) => rss);
      const secondHalf = samples.filter(([turns]) => turns > settings.workerTurns / 2).map(([, rss]) => rss);
      const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
      return [
        table(
          ["server", "RSS (MB)"],
          [
            ["warm, no client", serverBefore],
            [`${settings.idleSockets} idle sockets connected`, serverWith],
            ["2 s after they disconnected", serverAfter],
          ],
        ),
        "",
        `≈ ${fmt(((serverWith - serverBefore) * 1024) / settings.idleSockets)} KB per idle socket.`,
        "",
        `Worker RSS over ${settings.workerTurns} turns (instant model, 16 sessions back to back, ${fmt(settings.workerTurns / seconds)} turns/s, ${failed} failed):`,
        "",
        table(["turns done", ...samples.map(([turns]) => String(turns))], [["worker RSS (MB)", ...samples.map(([, rss]) => rss)]]),
        "",
        `Mean RSS over the first half ${fmt(mean(firstHalf))} MB, second half ${fmt(mean(secondHalf))} MB (growth ${fmt(mean(secondHalf) - mean(firstHalf))} MB).`,
      ].join("\n");
    } finally {
      await stack.stop();
    }
  },
};
