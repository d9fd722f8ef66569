/** With Redis gone, requests fail fast with 503 and store nothing — never a 500 or a hang. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { findFreePort, type ManagedChild } from "../../scripts/embedded/child-process";
import { startEmbeddedRedis } from "../../scripts/embedded/redis";
import { startServer, type RunningServer } from "../../server/server";
import { api, login } from "../support/client";
import { useStack, type Stack } from "../support/stack";

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
    server = await startServer(parseConfig({ ...process.env, REDIS_URL: own.url }), { port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 quickly for chat and readiness, storing nothing", async () => {
    const { token } = await login(server.url, "employee@example.com");
    await redis.stop();
    const started = Date.now();
    const posted = await api(server.url, "POST", "/api/v1/chat", { token, body: { message: "Is anyone there?" } });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(503);
    expect(posted.body.error.code).to.be.oneOf(["SERVICE_UNAVAILABLE", "QUEUE_UNAVAILABLE"]);
    expect(Date.now() - started).to.be.lessThan(10_000);
    // Other suites' turns may still be finishing, so look for this message itself.
    const stored = await stack.server.deps.db("chat_messages").where({ content: "Is anyone there?" }).first("id");
    expect(stored).to.equal(undefined);
    const ready = await api(server.url, "GET", "/readyz");
    expect(ready.status).to.equal(503);
    expect(ready.body.checks.postgres).to.equal("ok");
  });
});
