/**
 * The database process itself dies mid-turn: SIGKILL to the postmaster of a real PostgreSQL
 * while the answer streams, then the server is started again (crash recovery replays the WAL).
 * The turn ends exactly once with the whole answer, and nothing is stored twice. Runs on a
 * cluster and Redis of its own (the shared stack's database is not killed); skipped on the
 * PGlite lane, which has no postmaster to kill.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as joinPath } from "node:path";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { startTestCluster, testDatabaseEngine, type TestCluster } from "../harness/infrastructure";
import { prepareDatabase } from "../../ops/cli/prepare-database";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { api } from "../harness/client";
import { stackSuite } from "../support/suite";
import { generationRequestsFor } from "../workers/tutor/helpers";
import { expectEndedOnce, finalText, streamLongAnswer } from "./helpers";
import { testEnv } from "../support/tunables";

const LONG_ANSWER = Array.from({ length: 40 }, (_, i) => `Step ${i + 1} of a return is described here.`).join(" ");

describe("the PostgreSQL server killed mid-turn", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let cluster: TestCluster | undefined;
  let redis: ManagedChild | undefined;
  let redisDir: string | undefined;
  let server: RunningServer | undefined;
  let workers: RunningWorkers | undefined;

  before(async function () {
    if (testDatabaseEngine() !== "server") this.skip();
    this.timeout(120_000);
    // Commits must reach the WAL on disk before they are acknowledged, as in production: with the
    // throwaway clusters' synchronous_commit=off a killed postmaster loses the last ~200 ms of
    // commits (here: the turn's own session and question).
    cluster = await startTestCluster({ settings: { synchronous_commit: "on" } });
    redisDir = mkdtempSync(joinPath(tmpdir(), "skillnet-crash-redis-"));
    const ownRedis = await startEmbeddedRedis({ port: await findFreePort(), dataDir: redisDir, persistent: false, log: () => undefined });
    redis = ownRedis.child;
    const config = parseConfig(testEnv({ ...process.env, DATABASE_URL: cluster.url, REDIS_URL: ownRedis.url, WORKER_DATABASE_PAUSE_MS: "300" }));
    await prepareDatabase(config);
    workers = await startWorkers(config, { llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    server = await startServer(config, { port: 0, host: "127.0.0.1" });
  });

  after(async () => {
    await server?.close().catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await redis?.stop(5_000).catch(() => undefined);
    await cluster?.stop();
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  });

  it("ends the turn exactly once with the whole answer, stored once, after the postmaster is SIGKILLed and restarted", async () => {
    const question = "Walk me through every step of a return, please.";
    const { token, socket, received, sessionId, turnId } = await streamLongAnswer(stack, server!.url, question, LONG_ANSWER);
    try {
      const killed = cluster!.postmasterPid()!;
      process.kill(killed, "SIGKILL");
      await cluster!.restart();
      expect(cluster!.postmasterPid()).to.not.equal(killed);

      const { events } = await expectEndedOnce(received, turnId);
      expect(finalText(events)).to.equal(LONG_ANSWER);

      const db = workers!.deps.db;
      const rows = await db("chat_messages").where({ turn_id: turnId }).orderBy("created_at");
      expect(rows.map((row) => row.role)).to.deep.equal(["user", "assistant"], "one question and one answer stored");
      expect(rows[1]!.status).to.equal("complete");
      expect(rows[1]!.content).to.equal(LONG_ANSWER);
      const stored = await api(server!.url, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token });
      expect(stored.status).to.equal(200);
      expect(stored.body.messages.filter((m: { turn_id: string }) => m.turn_id === turnId)).to.have.length(2);
      expect(generationRequestsFor(stack, question)).to.have.length(1, "the model was asked once");
    } finally {
      socket.disconnect();
    }
  });
});
