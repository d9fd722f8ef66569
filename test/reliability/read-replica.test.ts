/**
 * A Postgres read replica, from the distribution's binaries: a primary and a hot standby made with
 * `pg_basebackup -R`, streaming. Workers get DATABASE_READ_URL; the test proves where the
 * retrieval searches ran (pg_stat_statements on each server counts its own statements), then
 * pauses the replica's replay until it lags past DATABASE_READ_MAX_LAG_MS, and finally stops it
 * while turns run. Every turn ends with its answer; reads the replica could not serve went to the
 * primary and /metrics counts them by reason. Skipped on the PGlite lane (no streaming).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as joinPath } from "node:path";
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import { parseConfig } from "../../lib/config";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { startTestCluster, startTestReplica, testDatabaseEngine, type TestCluster } from "../harness/infrastructure";
import { prepareDatabase } from "../../ops/cli/prepare-database";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd, type ReceivedEvent } from "../harness/client";
import { stackSuite } from "../support/suite";
import { scriptedResponder } from "../workers/tutor/helpers";
import { parseExposition, total } from "../server/metrics-helpers";
import { finalErrors } from "./helpers";
import { testEnv } from "../support/tunables";

const STATS = { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" };
const MAX_LAG_MS = 1_000;

/** Calls of the chunk searches (vector `<=>` and full-text `ts_rank_cd`) this server ran since its last reset. */
async function searchCalls(db: Knex): Promise<number> {
  const result = await db.raw<{ rows: Array<{ calls: string | null }> }>(
    "select sum(calls)::text as calls from pg_stat_statements where query like '%FROM document_chunks%' and (query like '%<=>%' or query like '%ts_rank_cd%')",
  );
  return Number(result.rows[0]?.calls ?? 0);
}

describe("a Postgres read replica for retrieval and history", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let primary: TestCluster | undefined;
  let replica: TestCluster | undefined;
  let redis: ManagedChild | undefined;
  let redisDir: string | undefined;
  let server: RunningServer | undefined;
  let workers: RunningWorkers | undefined;
  let onPrimary: Knex | undefined;
  let onReplica: Knex | undefined;
  let token = "";

  before(async function () {
    if (testDatabaseEngine() !== "server") this.skip();
    this.timeout(150_000);
    primary = await startTestCluster({ settings: STATS });
    redisDir = mkdtempSync(joinPath(tmpdir(), "skillnet-replica-redis-"));
    const ownRedis = await startEmbeddedRedis({ port: await findFreePort(), dataDir: redisDir, persistent: false, log: () => undefined });
    redis = ownRedis.child;
    const base = { ...process.env, DATABASE_URL: primary.url, REDIS_URL: ownRedis.url };
    await prepareDatabase(parseConfig(base));
    onPrimary = knexFactory({ client: "pg", connection: primary.url, pool: { min: 0, max: 2 } });
    await onPrimary.raw("create extension if not exists pg_stat_statements");
    replica = await startTestReplica(primary, { settings: STATS });
    onReplica = knexFactory({ client: "pg", connection: replica.url, pool: { min: 0, max: 2 } });
    await waitFor(async () => (await onReplica!.raw("select pg_is_in_recovery() as standby")).rows[0].standby === true, 30_000, "a hot standby");
    const config = parseConfig(testEnv({ ...base, DATABASE_READ_URL: replica.url, DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS) }));
    workers = await startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    server = await startServer(config, { port: 0, host: "127.0.0.1" });
    ({ token } = await login(server.url, "employee@example.com"));
  });

  after(async () => {
    await server?.close().catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await onPrimary?.destroy();
    await onReplica?.destroy();
    await replica?.stop();
    await primary?.stop();
    await redis?.stop(5_000).catch(() => undefined);
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  });

  /** Asks `count` questions at once and waits for every turn to end; returns each turn's events. */
  async function askAll(count: number): Promise<ReceivedEvent[][]> {
    const socket = await connect(server!.url, token);
    const received = recordEvents(socket);
    try {
      const turns = await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const posted = await api(server!.url, "POST", "/api/v1/chat", { token, body: { message: `How do I file expense claim ${i} (${randomUUID()})?` } });
          expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
          expect(await join(socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
          return posted.body.turn_id as string;
        }),
      );
      return await Promise.all(turns.map((turnId) => waitForTurnEnd(received, turnId, 90_000)));
    } finally {
      socket.disconnect();
    }
  }

  function expectAllAnswered(turns: ReceivedEvent[][]): void {
    for (const events of turns) {
      expect(finalErrors(events), "no turn failed").to.have.length(0);
      expect(events.filter((e) => e.event === "done")).to.have.length(1);
    }
  }

  async function skipped(reason: "down" | "lagging"): Promise<number> {
    return total(parseExposition(await server!.deps.metrics.registry.metrics()), "skillnet_db_replica_skipped_reads_total", { reason });
  }

  it("runs the retrieval searches on the replica, none on the primary", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    await onPrimary!.raw("select pg_stat_statements_reset()");
    await onReplica!.raw("select pg_stat_statements_reset()");
    expectAllAnswered(await askAll(2));
    expect(await searchCalls(onReplica!), "searches on the replica").to.be.greaterThan(0);
    expect(await searchCalls(onPrimary!), "searches on the primary").to.equal(0);
  });

  it("sends the reads to the primary while the replica lags past DATABASE_READ_MAX_LAG_MS, counted, and back once it caught up", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const before = await skipped("lagging");
    await onReplica!.raw("select pg_wal_replay_pause()");
    try {
      // WAL the replica will not replay while paused; the router sees it age past the limit.
      await onPrimary!.raw("create table if not exists replica_lag_probe (at timestamptz)");
      await onPrimary!.raw("insert into replica_lag_probe values (now())");
      await waitFor(() => workers!.deps.reads.current().reason === "lagging", 30_000, "the replica to count as lagging");
      await onPrimary!.raw("select pg_stat_statements_reset()");
      expectAllAnswered(await askAll(2));
      expect(await searchCalls(onPrimary!), "searches moved to the primary").to.be.greaterThan(0);
      await waitFor(async () => (await skipped("lagging")) > before, 15_000, "/metrics to count the lagging skips");
    } finally {
      await onReplica!.raw("select pg_wal_replay_resume()");
    }
    await waitFor(() => workers!.deps.reads.current().usable, 30_000, "the replica to be used again");
  });

  it("moves the reads to the primary when the replica stops mid-load, and no turn fails", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    stack.llm.setTokenDelay(10);
    const before = await skipped("down");
    await onReplica!.raw("select pg_stat_statements_reset()");
    const load = askAll(6);
    // Mid-load: once some turn has got past retrieval, while the others are still on their way.
    await waitFor(async () => (await searchCalls(onReplica!).catch(() => 0)) > 0, 30_000, "searches on the replica");
    await onReplica!.destroy();
    onReplica = undefined;
    process.kill(replica!.postmasterPid()!, "SIGINT");
    expectAllAnswered(await load);
    expectAllAnswered(await askAll(2));
    expect(workers!.deps.reads.current()).to.include({ usable: false, reason: "down" });
    await waitFor(async () => (await skipped("down")) > before, 15_000, "/metrics to count the skips while the replica is down");
  });
});
