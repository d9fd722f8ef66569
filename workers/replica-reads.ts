/**
 * The workers' read router (db/read-replica.ts) with its bookkeeping: reads sent to the primary
 * because the replica was skipped are tallied and reported to the servers' /metrics every few
 * seconds (workers serve no HTTP), and each change of the replica's state is logged once.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../lib/config";
import { createDb, type Db } from "../db/knex";
import { ReadRouter, type ReadSkipReason } from "../db/read-replica";
import { publishReplicaSkips } from "../queues/events/job-events";

const REPORT_INTERVAL_MS = 2_000;

export interface ReplicaReads {
  router: ReadRouter;
  close(): Promise<void>;
}

export async function startReplicaReads(config: Pick<Config, "database">, primary: Db, redis: Redis, log: Logger): Promise<ReplicaReads> {
  const replica = config.database.DATABASE_READ_URL
    ? createDb({
        url: config.database.DATABASE_READ_URL,
        poolMax: config.database.DATABASE_POOL_MAX,
        statementTimeoutMs: config.database.DATABASE_STATEMENT_TIMEOUT_MS,
      })
    : undefined;
  const tally: Record<ReadSkipReason, number> = { down: 0, lagging: 0 };
  const report = (): void => {
    if (tally.down === 0 && tally.lagging === 0) return;
    publishReplicaSkips(redis, { ...tally });
    tally.down = 0;
    tally.lagging = 0;
  };
  const router = new ReadRouter({
    primary,
    replica,
    maxLagMs: config.database.DATABASE_READ_MAX_LAG_MS,
    onSkip: (reason) => tally[reason]++,
    onState: (state) =>
      state.usable
        ? log.info({ lagMs: state.lagMs }, "read replica in use")
        : log.warn({ reason: state.reason, lagMs: state.lagMs }, "read replica skipped: its reads go to the primary"),
  });
  await router.start();
  const timer = replica ? setInterval(report, REPORT_INTERVAL_MS) : undefined;
  timer?.unref();
  return {
    router,
    async close() {
      clearInterval(timer);
      report();
      await router.stop();
      await replica?.destroy();
    },
  };
}
