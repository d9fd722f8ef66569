/**
 * Issue 9, part 5: what an operator's endpoints expose. /metrics needs METRICS_TOKEN unless
 * dev-login is on; /readyz tells anonymous callers only up/down; Bull Board signs in without a
 * token in any URL (form POST or single-use code) into a HttpOnly, SameSite=Strict cookie that is
 * Secure behind a trusted HTTPS proxy; and Redis at maxmemory refuses new turns with 503.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { Redis } from "ioredis";
import Koa from "koa";
import pino from "pino";
import { parseConfig } from "../../lib/config";
import { findFreePort, type ManagedChild } from "../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../launcher/embedded/redis";
import type { ServerDeps } from "../../server/deps";
import { errorMiddleware } from "../../server/errors";
import { ServerMetrics } from "../../server/metrics";
import { createApp } from "../../server/app";
import { type ApiRoute, mountRoutes } from "../../server/routes/define-route";
import { healthRoutes } from "../../server/routes/health";
import { opsRoutes } from "../../server/routes/ops";
import { startServer, type RunningServer } from "../../server/server";
import { api, login } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { configWith, testEnv } from "../support/tunables";

const silent = pino({ level: "silent" });

/** Some route definitions on a real HTTP port, with the app's error mapping, built from just the deps they read. */
async function serve(deps: Partial<ServerDeps>, routes: readonly ApiRoute[]): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  app.use(errorMiddleware(silent));
  app.use(mountRoutes(deps as ServerDeps, routes).routes());
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const form = (token: string, headers: Record<string, string> = {}) => ({
  rawBody: `token=${encodeURIComponent(token)}`,
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
});

describe("operational exposure", function () {
  this.timeout(60_000);
  let stack: Stack;
  const servers: Server[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  after(() => {
    for (const server of servers) server.close();
  });

  describe("/metrics", () => {
    const metricsFor = async ({ METRICS_TOKEN, DEV_LOGIN_ENABLED }: { METRICS_TOKEN?: string; DEV_LOGIN_ENABLED: boolean }) => {
      const config = configWith(stack.config, { METRICS_TOKEN, DEV_LOGIN_ENABLED });
      const metricsRoute = opsRoutes.filter((route) => route.path === "/metrics");
      const served = await serve({ metrics: new ServerMetrics({ producer: stack.server.deps.producer }), config }, metricsRoute);
      servers.push(served.server);
      return served.url;
    };

    it("is refused without METRICS_TOKEN when dev-login is off, saying what to set", async () => {
      const url = await metricsFor({ DEV_LOGIN_ENABLED: false });
      const response = await api(url, "GET", "/metrics");
      expect(response.status).to.equal(403);
      expect(response.body.error.message).to.include("METRICS_TOKEN");
      expect((await api(url, "GET", "/metrics", { token: "anything" })).status).to.equal(403);
    });

    it("needs the bearer token when METRICS_TOKEN is set, even with dev-login on", async () => {
      const url = await metricsFor({ METRICS_TOKEN: "scrape-secret-123", DEV_LOGIN_ENABLED: true });
      expect((await api(url, "GET", "/metrics")).status).to.equal(401);
      expect((await api(url, "GET", "/metrics", { token: "wrong" })).status).to.equal(401);
      const scraped = await api(url, "GET", "/metrics", { token: "scrape-secret-123" });
      expect(scraped.status).to.equal(200);
      expect(String(scraped.body)).to.include("skillnet_socket_connections");
    });

    it("stays open in embedded development (dev-login on, no token)", async () => {
      const url = await metricsFor({ DEV_LOGIN_ENABLED: true });
      expect((await api(url, "GET", "/metrics")).status).to.equal(200);
    });
  });

  describe("/readyz", () => {
    const secretText = "connect ECONNREFUSED 10.20.30.40:6379 (user skillnet-admin)";
    let url: string;
    const warnings: unknown[] = [];

    before(async () => {
      const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as ServerDeps["log"];
      const deps = {
        redis: { ping: () => Promise.reject(new Error(secretText)) },
        db: { raw: () => Promise.resolve({ rows: [] }) },
        log,
        config: { server: { METRICS_TOKEN: "ops-secret-456" } },
      } as unknown as Pick<ServerDeps, "redis" | "db" | "log" | "config">;
      const served = await serve(deps, healthRoutes);
      servers.push(served.server);
      url = served.url;
    });

    it("tells anonymous callers only which component is down", async () => {
      const response = await api(url, "GET", "/readyz");
      expect(response.status).to.equal(503);
      expect(response.body).to.deep.equal({ status: "not_ready", checks: { redis: "down", postgres: "ok" } });
      expect(JSON.stringify(response.body)).not.to.match(/ECONNREFUSED|10\.20\.30\.40|skillnet-admin/);
      expect((await api(url, "GET", "/readyz", { token: "a-guess" })).body).not.to.have.property("details");
      expect(JSON.stringify(warnings), "the reason goes to the log").to.include("ECONNREFUSED");
    });

    it("gives the reason to callers holding METRICS_TOKEN", async () => {
      const response = await api(url, "GET", "/readyz", { token: "ops-secret-456" });
      expect(response.status).to.equal(503);
      expect(response.body.details).to.deep.equal({ redis: secretText });
    });

    it("answers a healthy stack with ok per component", async () => {
      const response = await api(stack.baseUrl, "GET", "/readyz");
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ status: "ready", checks: { redis: "ok", postgres: "ok" } });
    });
  });

  describe("Bull Board sign-in", () => {
    let admin: string;
    let employee: string;

    before(async () => {
      admin = (await login(stack.baseUrl, "admin@example.com")).token;
      employee = (await login(stack.baseUrl, "employee@example.com")).token;
    });

    it("serves a sign-in page that POSTs the token, and refuses a token in the URL", async () => {
      const page = await api(stack.baseUrl, "GET", "/admin/login");
      expect(page.status).to.equal(200);
      expect(String(page.body)).to.match(/<form method="post" action="\/admin\/login">/);
      expect(String(page.body)).to.include('type="password" name="token"');
      const inUrl = await api(stack.baseUrl, "GET", `/admin/login?token=${admin}`);
      expect(inUrl.status).to.equal(400);
      expect(inUrl.body.error.code).to.equal("TOKEN_IN_URL");
      expect(inUrl.headers.get("set-cookie")).to.equal(null);
    });

    it("signs in by form POST into an HttpOnly, SameSite=Strict cookie; plain HTTP is not Secure", async () => {
      // Without TRUST_PROXY a forged X-Forwarded-Proto changes nothing.
      const signIn = await api(stack.baseUrl, "POST", "/admin/login", form(admin, { "x-forwarded-proto": "https" }));
      expect(signIn.status).to.equal(303);
      expect(signIn.headers.get("location")).to.equal("/admin/queues");
      const cookie = signIn.headers.get("set-cookie")!;
      expect(cookie).to.match(/^skillnet_token=/);
      expect(cookie).to.match(/httponly/i);
      expect(cookie).to.match(/samesite=strict/i);
      expect(cookie).to.match(/path=\/admin/i);
      expect(cookie).not.to.match(/secure/i);
      const board = await api(stack.baseUrl, "GET", "/admin/queues/api/queues", { headers: { cookie: cookie.split(";")[0]! } });
      expect(board.status).to.equal(200);
      expect((await api(stack.baseUrl, "POST", "/admin/login", form(employee))).status).to.equal(403);
      expect((await api(stack.baseUrl, "POST", "/admin/login", form("not-a-token"))).status).to.equal(401);
      expect((await api(stack.baseUrl, "POST", "/admin/login", { body: { token: admin } })).status, "JSON is not the form").to.equal(415);
    });

    it("trades a bearer token for a single-use code that never carries the token", async () => {
      expect((await api(stack.baseUrl, "POST", "/api/v1/ops/board-code", { token: employee })).status).to.equal(403);
      expect((await api(stack.baseUrl, "POST", "/api/v1/ops/board-code")).status).to.equal(401);
      const issued = await api(stack.baseUrl, "POST", "/api/v1/ops/board-code", { token: admin });
      expect(issued.status).to.equal(201);
      expect(issued.body.url).to.equal(`/admin/queues?code=${issued.body.code}`);
      expect(issued.body.expires_in_seconds).to.equal(stack.config.server.BOARD_CODE_TTL_SECONDS);
      expect(JSON.stringify(issued.body)).not.to.include(admin);

      const redeemed = await api(stack.baseUrl, "GET", issued.body.url);
      expect(redeemed.status).to.equal(303);
      expect(redeemed.headers.get("location"), "the code leaves the address bar").to.equal("/admin/queues");
      const cookie = redeemed.headers.get("set-cookie")!;
      expect(cookie)
        .to.match(/httponly/i)
        .and.to.match(/samesite=strict/i);
      const page = await api(stack.baseUrl, "GET", "/admin/queues", { headers: { cookie: cookie.split(";")[0]! } });
      expect(page.status).to.equal(200);

      const again = await api(stack.baseUrl, "GET", issued.body.url);
      expect(again.status, "a code works once").to.equal(401);
      expect(again.body.error.message).to.match(/already used or expired/);
      expect((await api(stack.baseUrl, "GET", "/admin/queues?code=made-up")).status).to.equal(401);
    });

    describe("behind a trusted proxy, with short-lived codes", () => {
      let server: RunningServer;
      before(async function () {
        this.timeout(60_000);
        server = await startServer(parseConfig(testEnv({ ...process.env, TRUST_PROXY: "true", BOARD_CODE_TTL_SECONDS: "1" })), { port: 0, host: "127.0.0.1" });
      });
      after(async () => {
        await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      });

      it("marks the cookie Secure when the proxy says the request came over HTTPS", async () => {
        const secure = await api(server.url, "POST", "/admin/login", form(admin, { "x-forwarded-proto": "https" }));
        expect(secure.status).to.equal(303);
        expect(secure.headers.get("set-cookie"))
          .to.match(/;\s*secure/i)
          .and.to.match(/httponly/i)
          .and.to.match(/samesite=strict/i);
        const plain = await api(server.url, "POST", "/admin/login", form(admin));
        expect(plain.headers.get("set-cookie")).not.to.match(/secure/i);
      });

      it("sends HSTS only when the trusted proxy says the request came over HTTPS", async () => {
        const overHttps = await api(server.url, "GET", "/api/v1/me", { token: admin, headers: { "x-forwarded-proto": "https" } });
        expect(overHttps.status).to.equal(200);
        expect(overHttps.headers.get("strict-transport-security")).to.equal(`max-age=${stack.config.server.HSTS_MAX_AGE_SECONDS}`);
        expect((await api(server.url, "GET", "/admin/login", { headers: { "x-forwarded-proto": "https" } })).headers.get("strict-transport-security")).to.match(
          /^max-age=\d+$/,
        );
        expect((await api(server.url, "GET", "/api/v1/me", { token: admin })).headers.get("strict-transport-security")).to.equal(null);
      });

      it("refuses an expired code", async () => {
        const issued = await api(server.url, "POST", "/api/v1/ops/board-code", { token: admin });
        expect(issued.status).to.equal(201);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const late = await api(server.url, "GET", issued.body.url);
        expect(late.status).to.equal(401);
        expect(late.headers.get("set-cookie")).to.equal(null);
      });
    });
  });

  describe("security headers and a read-only board", () => {
    let admin: string;
    const own: Server[] = [];
    before(async () => {
      admin = (await login(stack.baseUrl, "admin@example.com")).token;
    });
    after(() => {
      for (const server of own) server.close();
    });

    /** The real app on its own port, with some settings changed. */
    async function appWith(config: Record<string, unknown>): Promise<string> {
      const server = createServer(createApp({ ...stack.server.deps, config: configWith(stack.server.deps.config, config) }).callback());
      own.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }

    const boardCookie = async (url: string): Promise<string> => (await api(url, "POST", "/admin/login", form(admin))).headers.get("set-cookie")!.split(";")[0]!;

    it("Bull Board and its sign-in page forbid framing and carry a CSP; every API response says nosniff; no HSTS over plain HTTP", async () => {
      const cookie = await boardCookie(stack.baseUrl);
      const pages = {
        "/admin/login": await api(stack.baseUrl, "GET", "/admin/login"),
        "/admin/queues": await api(stack.baseUrl, "GET", "/admin/queues", { headers: { cookie } }),
        "/admin/queues/api/queues": await api(stack.baseUrl, "GET", "/admin/queues/api/queues", { headers: { cookie } }),
      };
      for (const [path, page] of Object.entries(pages)) {
        expect(page.status, path).to.equal(200);
        expect(page.headers.get("x-frame-options"), path).to.equal("DENY");
        expect(page.headers.get("content-security-policy"), path).to.include("frame-ancestors 'none'").and.to.include("script-src 'self'");
        expect(page.headers.get("x-content-type-options"), path).to.equal("nosniff");
      }
      for (const response of [
        await api(stack.baseUrl, "GET", "/api/v1/me", { token: admin }),
        await api(stack.baseUrl, "GET", "/api/v1/me"),
        await api(stack.baseUrl, "GET", "/api/v1/nope", { token: admin }),
        await api(stack.baseUrl, "POST", "/api/v1/chat", { token: admin, body: { message: "" } }),
      ]) {
        expect(response.headers.get("x-content-type-options"), String(response.status)).to.equal("nosniff");
        expect(response.headers.get("content-security-policy"), String(response.status)).to.match(/^default-src 'none'.*frame-ancestors 'none'/);
        expect(response.headers.get("strict-transport-security"), "plain HTTP, no trusted proxy").to.equal(null);
      }
      // Without TRUST_PROXY a client's own X-Forwarded-Proto cannot switch HSTS on.
      const forged = await api(stack.baseUrl, "GET", "/api/v1/me", { token: admin, headers: { "x-forwarded-proto": "https" } });
      expect(forged.headers.get("strict-transport-security")).to.equal(null);
    });

    it("with BULL_BOARD_READ_ONLY, the board still shows the queues but refuses retry, clean, pause, promote and add", async () => {
      const url = await appWith({ BULL_BOARD_READ_ONLY: true });
      const cookie = await boardCookie(url);
      const queues = await api(url, "GET", "/admin/queues/api/queues", { headers: { cookie } });
      expect(queues.status).to.equal(200);
      expect(queues.body.queues.length).to.be.greaterThan(0);
      expect(queues.body.queues.every((queue: { readOnlyMode: boolean }) => queue.readOnlyMode)).to.equal(true);
      const before = await stack.server.deps.producer.queue("maintenance").isPaused();
      for (const [method, path] of [
        ["PUT", "/admin/queues/api/queues/maintenance/retry/failed"],
        ["PUT", "/admin/queues/api/queues/maintenance/clean/completed"],
        ["PUT", "/admin/queues/api/queues/maintenance/pause"],
        ["PUT", "/admin/queues/api/queues/maintenance/promote"],
        ["PUT", "/admin/queues/api/queues/maintenance/empty"],
      ] as const) {
        expect((await api(url, method, path, { headers: { cookie } })).status, path).to.equal(405);
      }
      expect(await stack.server.deps.producer.queue("maintenance").isPaused()).to.equal(before);

      // The default board is writable (the control case): promoting delayed jobs is harmless and allowed.
      const writable = await api(stack.baseUrl, "PUT", "/admin/queues/api/queues/maintenance/promote", {
        headers: { cookie: await boardCookie(stack.baseUrl) },
      });
      expect(writable.status).to.equal(200);
    });
  });

  describe("Redis at maxmemory", () => {
    let redis: ManagedChild;
    let server: RunningServer;
    let dir: string;
    let client: Redis;

    before(async function () {
      this.timeout(60_000);
      dir = mkdtempSync(join(tmpdir(), "skillnet-maxmemory-"));
      const own = await startEmbeddedRedis({ port: await findFreePort(), dataDir: dir, persistent: false, maxmemory: "4mb", log: () => undefined });
      redis = own.child;
      client = new Redis(own.url);
      server = await startServer(parseConfig(testEnv({ ...process.env, REDIS_URL: own.url })), { port: 0, host: "127.0.0.1" });
    });
    after(async () => {
      await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      client?.disconnect();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("runs the embedded redis with the cap and noeviction", async () => {
      expect(await client.config("GET", "maxmemory")).to.deep.equal(["maxmemory", String(4 * 1024 * 1024)]);
      expect(await client.config("GET", "maxmemory-policy")).to.deep.equal(["maxmemory-policy", "noeviction"]);
    });

    it("answers new turns with 503 once Redis is full, storing nothing and evicting nothing", async () => {
      const { token } = await login(server.url, "employee@example.com");
      await client.set("ballast", "x".repeat(512 * 1024));
      // Lower the cap below what is stored: every write from now on meets the limit.
      await client.config("SET", "maxmemory", "1mb");
      const refused = await client.set("one-more", "x").catch((error: Error) => error);
      expect(String(refused)).to.match(/OOM command not allowed/);
      const posted = await api(server.url, "POST", "/api/v1/chat", { token, body: { message: "Is there room for me?" } });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(503);
      expect(posted.body.error.code).to.be.oneOf(["SERVICE_UNAVAILABLE", "QUEUE_UNAVAILABLE"]);
      expect(await stack.server.deps.db("chat_messages").where({ content: "Is there room for me?" }).first("id")).to.equal(undefined);
      expect(await client.strlen("ballast"), "noeviction keeps what is stored").to.equal(512 * 1024);
    });
  });
});
