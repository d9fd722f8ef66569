/**
 * Measure 7, scale-out: two servers and two workers on this machine under the same load as
 * measures 2 and 3 (sessions spread over both servers), with CPU and waits per process.
 */
import { devLogin } from "./clients";
import { waitTable } from "./report";
import type { BenchSettings } from "./settings";
import { startBenchStack } from "./stack";
import { measureThroughput, renderThroughput } from "./throughput";
import { measureTokenLag, renderTokenLag } from "./token-lag";

export const scaleOutModule = {
  name: "scale-out",
  title: "7. Scale-out: two servers, two workers",
  async run(settings: BenchSettings): Promise<string> {
    const sessions = settings.scaleOutSessions;
    const stack = await startBenchStack({ servers: 2, workers: 2, env: { WORKER_CONCURRENCY: String(Math.min(500, Math.max(16, Math.ceil(sessions / 4)))) } });
    try {
      const token = await devLogin(stack.servers[0]!);
      const lag = await measureTokenLag(stack, [sessions], settings.lagTokens, token);
      const steps = settings.throughputSteps.filter((step) => step >= 4);
      const throughput = await measureThroughput(stack, steps.length ? steps : settings.throughputSteps, settings.throughputSeconds);
      return [
        `### Token delivery lag, ${sessions} sessions over both servers`,
        "",
        renderTokenLag(lag, settings.lagTokens),
        "",
        "Waits per process during that round:",
        "",
        // The probe's window of the round itself (token-lag opens and closes one around each round).
        waitTable(lag[0]!.probes),
        "",
        "### Throughput curve over both servers and workers",
        "",
        renderThroughput(throughput, settings.throughputSeconds),
      ].join("\n");
    } finally {
      await stack.stop();
    }
  },
};
