/**
 * With Redis gone, requests fail fast with 503 and store nothing — never a 500 or a hang. When
 * only the queue refuses (the message is already stored), the turn is rolled back: 503
 * QUEUE_UNAVAILABLE, and the rows that request created are gone again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import { startServer, type RunningServer } from "../../server/server";
import { api, login } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { testEnv } from "../support/tunables";

describe("a Redis outage seen by the server", function () {
  this.timeout(60_000);
  let stack: Stack;
  let server: RunningServer;
  let redis: ManagedChild;
  let dir: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    // A second server node on its own Redis, which the test then stops; the main stack stays healthy.
    dir = mkdtempSync(join(tmpdir(), "skillnet-outage-"));
    const own = await startEmbeddedRedis({ port: await findFreePort(), dataDir: dir, persistent: false, log: () => undefined });
    redis = own.child;
    server = await startServer(parseConfig(testEnv({ ...process.env, REDIS_URL: own.url })), { port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rolls a turn back when the queue refuses it: 503 QUEUE_UNAVAILABLE, no message, no new session", async () => {
    const { token } = await login(server.url, "employee@example.com");
    // An existing session, started through the healthy stack (same database).
    const opening = `Opening question ${Date.now()}`;
    const first = await api(stack.baseUrl, "POST", "/api/v1/chat", { token, body: { message: opening } });
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    const sessionId: string = first.body.session_id;
    // This node's queue connection goes away; its other Redis connection (rate limits, event streams) stays up.
    // (BullMQ's force-disconnect closes the producer's shared connection.)
    await server.deps.producer.queue("tutor-generate").disconnect();

    const fresh = `A question nobody queued ${Date.now()}`;
    const refused = await api(server.url, "POST", "/api/v1/chat", { token, body: { message: fresh } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error.code).to.equal("QUEUE_UNAVAILABLE");
    expect(await stack.server.deps.db("chat_messages").where({ content: fresh }).first("id")).to.equal(undefined);
    expect(await stack.server.deps.db("chat_sessions").where({ title: fresh }).first("id")).to.equal(undefined, "the session this request created is removed");

    const followUp = `A follow-up nobody queued ${Date.now()}`;
    const refusedFollowUp = await api(server.url, "POST", "/api/v1/chat", { token, body: { message: followUp, context: { session_id: sessionId } } });
    expect(refusedFollowUp.status).to.equal(503);
    expect(refusedFollowUp.body.error.code).to.equal("QUEUE_UNAVAILABLE");
    expect(await stack.server.deps.db("chat_messages").where({ content: followUp }).first("id")).to.equal(undefined);
    const kept = await stack.server.deps.db("chat_messages").where({ session_id: sessionId, role: "user" }).select("content");
    expect(kept.map((row) => row.content)).to.deep.equal([opening], "the earlier session and its message stay");
  });

  it("answers 503 quickly for chat and readiness, storing nothing", async () => {
    const { token } = await login(server.url, "employee@example.com");
    await redis.stop();
    const started = Date.now();
    const posted = await api(server.url, "POST", "/api/v1/chat", { token, body: { message: "Is anyone there?" } });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(503);
    // Refused before anything is stored: the rate limiter's Redis call is the first to fail.
    expect(posted.body.error.code).to.equal("SERVICE_UNAVAILABLE");
    expect(Date.now() - started).to.be.lessThan(10_000);
    // Other suites' turns may still be finishing, so look for this message itself.
    const stored = await stack.server.deps.db("chat_messages").where({ content: "Is anyone there?" }).first("id");
    expect(stored).to.equal(undefined);
    const ready = await api(server.url, "GET", "/readyz");
    expect(ready.status).to.equal(503);
    expect(ready.body.checks.postgres).to.equal("ok");
  });
});
