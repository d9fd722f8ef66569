/**
 * Issue 9, part 3: dev-login is a development tool (refused in production, rate limited per
 * IP), every token has a bounded life (exp required, exp − iat capped, audience checked when
 * configured), and an open socket loses its connection when its token expires or its account
 * is deactivated or deleted — with an `auth_expired` event saying why.
 */
import { spawnSync } from "node:child_process";
import { randomUUID, randomBytes } from "node:crypto";
import { expect } from "chai";
import { SignJWT, decodeJwt } from "jose";
import type { Socket } from "socket.io-client";
import { ConfigError, parseConfig } from "../../lib/config";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { chooseBindAddress, exposureBannerLine } from "../../launcher/bind-address";
import { startServer, type RunningServer } from "../../server/server";
import { api, connect, join } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { testEnv } from "../support/tunables";

interface Disconnection {
  reason: string;
  authExpired?: { code: string; message: string };
  afterMs: number;
}

/** Resolves when the server disconnects the socket, with the `auth_expired` payload it sent first. */
function serverDisconnect(socket: Socket, timeoutMs = 10_000): Promise<Disconnection> {
  const started = Date.now();
  let authExpired: Disconnection["authExpired"];
  socket.on("auth_expired", (payload) => (authExpired = payload));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket still connected after ${timeoutMs} ms`)), timeoutMs);
    socket.once("disconnect", (reason) => {
      clearTimeout(timer);
      resolve({ reason, authExpired, afterMs: Date.now() - started });
    });
  });
}

describe("auth hardening", function () {
  this.timeout(60_000);
  let stack: Stack;
  let secret: Uint8Array;
  const users: string[] = [];
  const sockets: Socket[] = [];

  /** A token signed with the stack's secret and whatever claims a test needs (or lacks). */
  async function craft(claims: { sub: string; iat?: number; exp?: number; aud?: string; iss?: string }): Promise<string> {
    const { sub, iat, exp, aud, iss = "skillnet-chat" } = claims;
    const jwt = new SignJWT({ org: DEMO_IDS.orgId, role: "employee", ...(iat !== undefined ? { iat } : {}), ...(exp !== undefined ? { exp } : {}) })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setIssuer(iss);
    if (aud) jwt.setAudience(aud);
    return jwt.sign(secret);
  }

  async function freshEmployee(): Promise<string> {
    const [row] = await stack.server.deps
      .db("users")
      .insert({ org_id: DEMO_IDS.orgId, email: `auth-${randomUUID().slice(0, 8)}@example.com`, name: "Auth Tester", role: "employee", locale: "en" })
      .returning("id");
    users.push(row.id);
    return row.id as string;
  }

  const now = (): number => Math.floor(Date.now() / 1000);

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    secret = new TextEncoder().encode(stack.env.JWT_SECRET);
  });
  after(async () => {
    for (const socket of sockets) socket.disconnect();
    if (users.length) await stack.server.deps.db("users").whereIn("id", users).delete();
  });

  describe("dev-login", () => {
    it("Dev login with NODE_ENV=production → refused at start", function () {
      this.timeout(30_000);
      expect(() => parseConfig(testEnv({ NODE_ENV: "production", DEV_LOGIN_ENABLED: "true" }))).to.throw(ConfigError, /DEV_LOGIN_ENABLED.*production/);
      expect(() => parseConfig(testEnv({ NODE_ENV: "production", DEV_LOGIN_ENABLED: "false" }))).not.to.throw();
      expect(() => parseConfig(testEnv({ NODE_ENV: "development", DEV_LOGIN_ENABLED: "true" }))).not.to.throw();

      const result = spawnSync(process.execPath, ["--import", "tsx", "server/main.ts"], {
        env: {
          PATH: process.env.PATH,
          NODE_ENV: "production",
          DEV_LOGIN_ENABLED: "yes",
          JWT_SECRET: "0123456789abcdef0123",
          REDIS_URL: stack.env.REDIS_URL,
          DATABASE_URL: stack.env.DATABASE_URL,
        },
        encoding: "utf8",
        timeout: 25_000,
      });
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include("DEV_LOGIN_ENABLED");
      expect(result.stderr).to.include("NODE_ENV=production");
      expect(result.stdout).not.to.include("READY server");
    });

    it("refuses a dev-login token lifetime above the accepted maximum at start", () => {
      expect(() => parseConfig({}, { overrides: { JWT_TTL_SECONDS: "90000" } })).to.throw(ConfigError, /JWT_TTL_SECONDS.*JWT_MAX_TTL_SECONDS/);
      expect(parseConfig({ JWT_MAX_TTL_SECONDS: "90000" }, { overrides: { JWT_TTL_SECONDS: "90000" } }).auth.JWT_MAX_TTL_SECONDS).to.equal(90_000);
    });

    it("npm start binds to loopback while dev-login is on, and warns loudly when HOST exposes it", () => {
      const warned: string[] = [];
      const warn = (host: string) => warned.push(host);

      const unset: Record<string, string | undefined> = { DEV_LOGIN_ENABLED: "true" };
      expect(chooseBindAddress(unset, warn)).to.equal("loopback");
      expect(unset.HOST).to.equal("127.0.0.1");
      expect(exposureBannerLine("loopback", unset.HOST, 3000)).to.include("127.0.0.1 only");

      const exposed: Record<string, string | undefined> = { DEV_LOGIN_ENABLED: "true", HOST: "0.0.0.0" };
      expect(chooseBindAddress(exposed, warn)).to.equal("exposed");
      expect(exposed.HOST, "an explicit HOST is kept").to.equal("0.0.0.0");
      expect(warned).to.deep.equal(["0.0.0.0"]);
      expect(exposureBannerLine("exposed", exposed.HOST, 3000)).to.match(/WARNING.*HOST=0\.0\.0\.0 EXPOSES IT/);

      const off: Record<string, string | undefined> = { DEV_LOGIN_ENABLED: "false" };
      expect(chooseBindAddress(off, warn)).to.equal("as-configured");
      expect(off.HOST, "without dev-login the configured default stands").to.equal(undefined);
      expect(chooseBindAddress({ DEV_LOGIN_ENABLED: "true", HOST: "127.0.0.1" }, warn)).to.equal("loopback");
      expect(warned).to.have.length(1);
      // Addresses are parsed, not matched by prefix: a name that starts with "127." is anyone's.
      for (const host of ["::1", "[::1]", "localhost.", "127.0.0.2", "::ffff:127.0.0.1"]) {
        expect(chooseBindAddress({ DEV_LOGIN_ENABLED: "true", HOST: host }, warn), host).to.equal("loopback");
      }
      for (const host of ["127.attacker.example", "127.0.0.1.nip.io", "localhost.attacker.example", "::ffff:8.8.8.8"]) {
        expect(chooseBindAddress({ DEV_LOGIN_ENABLED: "true", HOST: host }, warn), host).to.equal("exposed");
      }
      expect(warned.slice(1)).to.deep.equal(["127.attacker.example", "127.0.0.1.nip.io", "localhost.attacker.example", "::ffff:8.8.8.8"]);
      expect(() => chooseBindAddress({ DEV_LOGIN_ENABLED: "true", NODE_ENV: "production" }, warn)).to.throw(ConfigError, /DEV_LOGIN_ENABLED/);
    });
  });

  describe("token lifetime on HTTP", () => {
    let userId: string;
    before(async () => {
      userId = await freshEmployee();
    });

    it("accepts a bounded token (the control case)", async () => {
      const token = await craft({ sub: userId, iat: now(), exp: now() + 600 });
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token })).status).to.equal(200);
    });

    it("refuses a token without exp with 401", async () => {
      const token = await craft({ sub: userId, iat: now() });
      const response = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token });
      expect(response.status).to.equal(401);
      expect(response.body.error.code).to.equal("UNAUTHORIZED");
    });

    it("refuses a token whose lifetime exceeds JWT_MAX_TTL_SECONDS, or that has no iat", async () => {
      const max = stack.config.auth.JWT_MAX_TTL_SECONDS;
      const tooLong = await craft({ sub: userId, iat: now(), exp: now() + max + 60 });
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: tooLong })).status).to.equal(401);
      const noIat = await craft({ sub: userId, exp: now() + 600 });
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: noIat })).status).to.equal(401);
      // An iat in the future cannot make a long-lived token look short.
      const futureIat = await craft({ sub: userId, iat: now() + max, exp: now() + max + 600 });
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: futureIat })).status).to.equal(401);
    });

    it("refuses a token from another issuer", async () => {
      const token = await craft({ sub: userId, iat: now(), exp: now() + 600, iss: "someone-else" });
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token })).status).to.equal(401);
    });
  });

  describe("sockets on the main server (re-check interval 60 s)", () => {
    it("a join after the account is deactivated is refused and the socket disconnected", async () => {
      const userId = await freshEmployee();
      const socket = await connect(stack.baseUrl, await stack.server.deps.tokens.sign({ userId, orgId: DEMO_IDS.orgId, role: "employee" }));
      sockets.push(socket);
      const gone = serverDisconnect(socket);
      await stack.server.deps.db("users").where({ id: userId }).update({ is_active: false });
      const ack = await join(socket, { sessionId: randomUUID() });
      expect(ack).to.deep.include({ ok: false });
      expect((ack as { error: { code: string } }).error.code).to.equal("ACCOUNT_INACTIVE");
      const { authExpired, reason, afterMs } = await gone;
      expect(authExpired?.code).to.equal("ACCOUNT_INACTIVE");
      expect(reason).to.equal("io server disconnect");
      expect(afterMs).to.be.lessThan(10_000);
    });

    // The sweep here runs once a minute, so this cut is the socket's own expiry timer.
    it("disconnects a socket when its token expires, with auth_expired TOKEN_EXPIRED", async () => {
      const userId = await freshEmployee();
      const token = await craft({ sub: userId, iat: now(), exp: now() + 2 });
      const socket = await connect(stack.baseUrl, token);
      sockets.push(socket);
      const { authExpired, reason, afterMs } = await serverDisconnect(socket);
      expect(authExpired?.code).to.equal("TOKEN_EXPIRED");
      expect(reason).to.equal("io server disconnect");
      // exp is whole seconds, so the cut comes 1–2 s after connecting; generous bound for a shared machine.
      expect(afterMs).to.be.within(500, 8_000);
      // And the expired token cannot reconnect.
      let refused: unknown;
      await connect(stack.baseUrl, token).catch((error) => (refused = error));
      expect((refused as { data?: { code?: string } })?.data?.code).to.equal("UNAUTHORIZED");
    });
  });

  describe("with JWT_AUDIENCE, a fast socket re-check and a trusted proxy", () => {
    let server: RunningServer;

    before(async function () {
      this.timeout(60_000);
      server = await startServer(
        parseConfig(
          testEnv({
            ...process.env,
            JWT_AUDIENCE: "skillnet-api",
            SOCKET_REAUTH_INTERVAL_MS: "200",
            TRUST_PROXY: "true",
            RATE_LIMIT_DEV_LOGIN_PER_MINUTE: "3",
          }),
        ),
        { port: 0, host: "127.0.0.1" },
      );
    });
    after(async () => {
      await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    });

    it("issues tokens with the audience and refuses tokens without it or with another one", async () => {
      const userId = await freshEmployee();
      const issued = await server.deps.tokens.sign({ userId, orgId: DEMO_IDS.orgId, role: "employee" });
      expect(decodeJwt(issued).aud).to.equal("skillnet-api");
      expect((await api(server.url, "GET", "/api/v1/chat/sessions", { token: issued })).status).to.equal(200);
      const right = await craft({ sub: userId, iat: now(), exp: now() + 600, aud: "skillnet-api" });
      expect((await api(server.url, "GET", "/api/v1/chat/sessions", { token: right })).status).to.equal(200);
      const wrong = await craft({ sub: userId, iat: now(), exp: now() + 600, aud: "another-api" });
      const refused = await api(server.url, "GET", "/api/v1/chat/sessions", { token: wrong });
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal("UNAUTHORIZED");
      const none = await craft({ sub: userId, iat: now(), exp: now() + 600 });
      expect((await api(server.url, "GET", "/api/v1/chat/sessions", { token: none })).status).to.equal(401);
      // The main server has no audience configured, so this server's tokens are not special there.
      expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: issued })).status).to.equal(200);
    });

    it("disconnects a deactivated user's open socket with auth_expired ACCOUNT_INACTIVE", async () => {
      const userId = await freshEmployee();
      const socket = await connect(server.url, await server.deps.tokens.sign({ userId, orgId: DEMO_IDS.orgId, role: "employee" }));
      sockets.push(socket);
      const gone = serverDisconnect(socket);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(socket.connected, "an active user's socket survives sweeps").to.equal(true);
      await stack.server.deps.db("users").where({ id: userId }).update({ is_active: false });
      const { authExpired, reason, afterMs } = await gone;
      expect(authExpired?.code).to.equal("ACCOUNT_INACTIVE");
      expect(authExpired?.message).to.match(/deactivated/);
      expect(reason).to.equal("io server disconnect");
      expect(afterMs).to.be.lessThan(8_000);
    });

    it("disconnects a deleted user's open socket", async () => {
      const userId = await freshEmployee();
      const socket = await connect(server.url, await server.deps.tokens.sign({ userId, orgId: DEMO_IDS.orgId, role: "employee" }));
      sockets.push(socket);
      const gone = serverDisconnect(socket);
      await stack.server.deps.db("users").where({ id: userId }).delete();
      expect((await gone).authExpired?.code).to.equal("ACCOUNT_INACTIVE");
    });

    it("rate limits dev-login per client IP with 429 and Retry-After", async () => {
      // A documentation-prefix IPv6 address of its own: another suite counting dev-logins per address in the shared Redis cannot pick the same one.
      const ip = `2001:db8:${randomBytes(6).toString("hex").match(/.{4}/g)!.join(":")}::1`;
      const attempt = (from: string, email = "employee@example.com") =>
        api(server.url, "POST", "/api/v1/auth/dev-login", { body: { email }, headers: { "x-forwarded-for": from } });
      expect((await attempt(ip)).status).to.equal(200);
      expect((await attempt(ip, "nobody@example.com")).status, "failed attempts count too").to.equal(401);
      expect((await attempt(ip)).status).to.equal(200);
      const limited = await attempt(ip);
      expect(limited.status).to.equal(429);
      expect(limited.body.error.code).to.equal("RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).to.be.within(1, 60);
      expect((await attempt(`198.51.100.${Math.floor(Math.random() * 200) + 1}`)).status, "another IP is not affected").to.equal(200);
    });
  });
});
