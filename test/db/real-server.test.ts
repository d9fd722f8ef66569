/**
 * What only a real PostgreSQL server shows (PGlite runs one transaction at a time and ignores
 * statement_timeout): a statement cancelled by the timeout ends the request or the turn with
 * DATABASE_TIMEOUT; a full pool turns requests away with a 503 while the pool is still busy;
 * a server whose max_connections are taken refuses to start with a message that says what to
 * change; two long transactions run side by side. Skipped on the PGlite lane.
 */
import { spawn } from "node:child_process";
import { expect } from "chai";
import pg from "pg";
import { DatabaseFullError } from "../../db/connection-limit";
import { parseConfig } from "../../lib/config";
import { startTestCluster, testDatabaseEngine } from "../harness/infrastructure";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { api, join, waitForTurnEnd } from "../harness/client";
import { stackSuite } from "../support/suite";
import { finalErrors, startOwnWorkers, stackWorker } from "../reliability/helpers";
import { freshEmployee, removeFreshEmployees, scriptedResponder } from "../workers/tutor/helpers";
import { testEnv } from "../support/tunables";

/** A session of our own that holds an ACCESS EXCLUSIVE lock on a table until released. */
async function lockTable(url: string, table: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query("ROLLBACK");
      await client.end();
    },
  };
}

describe("on a real PostgreSQL server", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000, cleanUp: removeFreshEmployees });
  const servers: RunningServer[] = [];
  const workers: RunningWorkers[] = [];

  before(function () {
    if (testDatabaseEngine() !== "server") this.skip();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close().catch(() => undefined);
    for (const running of workers.splice(0)) await running.close().catch(() => undefined);
  });

  /** A second server on the stack's database and Redis with its own settings. */
  async function serverWith(overrides: Record<string, string>): Promise<RunningServer> {
    const server = await startServer(parseConfig(testEnv({ ...process.env, ...overrides })), { port: 0, host: "127.0.0.1" });
    servers.push(server);
    return server;
  }

  it("statement_timeout cancels a request's slow statement: 503 DATABASE_TIMEOUT with a clear message and a retry hint", async () => {
    const server = await serverWith({ DATABASE_STATEMENT_TIMEOUT_MS: "300" });
    const learner = await freshEmployee(stack);
    expect((await api(server.url, "GET", "/api/v1/me", { token: learner.token })).status).to.equal(200);

    const lock = await lockTable(stack.config.database.DATABASE_URL!, "users");
    try {
      const response = await api(server.url, "GET", "/api/v1/me", { token: learner.token });
      expect(response.status).to.equal(503);
      expect(response.body.error.code).to.equal("DATABASE_TIMEOUT");
      expect(response.body.error.message).to.match(/database took too long/i);
      expect(response.headers.get("retry-after")).to.equal("5");
    } finally {
      await lock.release();
    }
    expect((await api(server.url, "GET", "/api/v1/me", { token: learner.token })).status, "answers again once the lock is gone").to.equal(200);
  });

  it("statement_timeout cancels a turn's slow statement on every attempt: the turn ends once with DATABASE_TIMEOUT", async () => {
    const turns = stackWorker(stack, "tutor-generate");
    await turns.pause();
    let lock: { release(): Promise<void> } | undefined;
    try {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => "Never shown." }));
      const learner = await freshEmployee(stack);
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "How do returns work?" } });
      expect(posted.status).to.equal(202);
      const turnId = posted.body.turn_id as string;
      expect(await join(learner.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });

      // The turn's job reads the turn with a join on lessons before its first stage: hold that table.
      lock = await lockTable(stack.config.database.DATABASE_URL!, "lessons");
      workers.push(await startOwnWorkers({ WORKER_QUEUES: "tutor-generate:1", DATABASE_STATEMENT_TIMEOUT_MS: "300" }));

      const events = await waitForTurnEnd(learner.events, turnId, 60_000);
      const job = await stack.workers.deps.producer.queue("tutor-generate").getJob(`${turnId}-generate`);
      expect(job?.attemptsMade, "every attempt was cancelled, none waited for ever").to.equal(3);
      const final = finalErrors(events);
      expect(final).to.have.length(1);
      expect(final[0]!.payload.code).to.equal("DATABASE_TIMEOUT");
      expect(final[0]!.payload.message).to.match(/database took too long/i);
      expect(events.map((e) => e.event)).to.not.include("done");
      const rows = await stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" });
      expect(rows.map((row) => [row.status, row.metadata.error_code])).to.deep.equal([["failed", "DATABASE_TIMEOUT"]]);
    } finally {
      await lock?.release();
      turns.resume();
    }
  });

  it("a full pool turns requests away with 503 while its one connection is still busy, instead of queueing them", async () => {
    const server = await serverWith({ DATABASE_POOL_MAX: "1", DATABASE_POOL_ACQUIRE_TIMEOUT_MS: "300" });
    const learner = await freshEmployee(stack);
    let busyFinished = false;
    const busy = server.deps.db.raw("SELECT pg_sleep(3)").then(() => {
      busyFinished = true;
    });
    try {
      const response = await api(server.url, "GET", "/api/v1/me", { token: learner.token });
      expect(response.status).to.equal(503);
      expect(response.body.error.code).to.equal("SERVICE_UNAVAILABLE");
      expect(busyFinished, "answered before the connection came free").to.equal(false);
    } finally {
      await busy;
    }
    expect((await api(server.url, "GET", "/api/v1/me", { token: learner.token })).status).to.equal(200);
  });

  it("max_connections reached at start: the server process refuses to start and says what to change; so do workers", async () => {
    const cluster = await startTestCluster({ settings: { max_connections: 3, superuser_reserved_connections: 0 } });
    const holders: pg.Client[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const client = new pg.Client({ connectionString: cluster.url });
        await client.connect();
        holders.push(client);
      }
      const env = { ...process.env, DATABASE_URL: cluster.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" };
      const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).to.equal(1);
      expect(output).to.not.include("READY server");
      expect(output).to.include("all of its max_connections are in use").and.include("DATABASE_POOL_MAX (8)");

      const refused = await startWorkers(parseConfig(testEnv({ ...process.env, DATABASE_URL: cluster.url })), { skipEmbeddingCheck: true }).then(
        (running) => {
          workers.push(running);
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(DatabaseFullError);
    } finally {
      for (const client of holders) await client.end().catch(() => undefined);
      await cluster.stop();
    }
  });

  it("two long transactions run side by side: one commits while the other is still open", async () => {
    const db = stack.server.deps.db;
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstStarted!: () => void;
    const firstIsOpen = new Promise<void>((resolve) => (firstStarted = resolve));
    const first = db.transaction(async (trx) => {
      await trx.raw("SELECT pg_sleep(0.2)");
      order.push("first open");
      firstStarted();
      await firstMayCommit;
      order.push("first commits");
    });
    await firstIsOpen;
    await db.transaction(async (trx) => {
      await trx.raw("SELECT pg_sleep(0.2)");
      order.push("second commits");
    });
    releaseFirst();
    await first;
    expect(order).to.deep.equal(["first open", "second commits", "first commits"]);
  });
});
