/**
 * Every pooled connection of the server and workers runs with Postgres's statement_timeout,
 * and a statement cancelled by it reaches an HTTP client as 503 DATABASE_TIMEOUT, not a 500.
 * PGlite does not enforce the timeout itself, so the cancellation is raised by the database
 * with the same SQLSTATE (57014) the real timeout produces.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import Koa from "koa";
import { errorMiddleware } from "../../server/errors";
import { componentLogger } from "../../lib/logger";
import { api } from "../harness/client";
import { useStack, type Stack } from "../support/stack";

describe("Postgres statement timeout", function () {
  this.timeout(60_000);
  let stack: Stack;
  let server: Server;
  let url: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    const app = new Koa();
    app.use(errorMiddleware(componentLogger("test")));
    app.use(async (ctx) => {
      const db = stack.server.deps.db;
      if (ctx.path === "/cancelled")
        await db.raw("DO $$ BEGIN RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = 'query_canceled'; END $$");
      if (ctx.path === "/broken") await db.raw("SELECT 1 / 0");
      ctx.body = { ok: true };
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sets DATABASE_STATEMENT_TIMEOUT_MS on the pooled connections (default 15 s)", async () => {
    expect(stack.config.database.DATABASE_STATEMENT_TIMEOUT_MS).to.equal(15_000);
    const shown = await stack.server.deps.db.raw("SHOW statement_timeout");
    expect(shown.rows[0].statement_timeout).to.equal("15s");
    const worker = await stack.workers.deps.db.raw("SHOW statement_timeout");
    expect(worker.rows[0].statement_timeout).to.equal("15s");
  });

  it("answers a request whose statement was cancelled with 503 DATABASE_TIMEOUT and a retry hint", async () => {
    const response = await api(url, "GET", "/cancelled");
    expect(response.status).to.equal(503);
    expect(response.body.error.code).to.equal("DATABASE_TIMEOUT");
    expect(response.body.error.message).to.match(/took too long/);
    expect(response.headers.get("retry-after")).to.equal("5");
    // Other database errors stay internal errors: only the cancellation is a retryable 503.
    const broken = await api(url, "GET", "/broken");
    expect(broken.status).to.equal(500);
    expect(broken.body.error.code).to.equal("INTERNAL_ERROR");
  });
});
