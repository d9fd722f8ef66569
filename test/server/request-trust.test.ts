/**
 * What the server believes about a request: its Host (DNS rebinding while dev-login is on), the
 * client IP behind trusted proxies (never the leftmost X-Forwarded-For entry a client wrote), and
 * the caller's role as the database has it now (a demoted admin loses the admin transcripts over
 * HTTP, as the socket `join` already refuses).
 */
import type { AddressInfo } from "node:net";
import { createServer, request, type Server } from "node:http";
import { randomUUID, randomBytes } from "node:crypto";
import { expect } from "chai";
import { createApp } from "../../server/app";
import { api, join } from "../harness/client";
import { startStack, type Stack } from "../support/stack";
import { askAdmin, cleanUp, freshUser, scriptTurn } from "../workers/admin/helpers";
import { configWith } from "../support/tunables";

/** A raw request with an arbitrary Host header (fetch will not send a forged one). */
function getWithHost(url: string, path: string, host: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: any }> {
  const target = new URL(url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const sent = payload === undefined ? { host, ...headers } : { host, "content-type": "application/json", ...headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path, method: payload ? "POST" : "GET", headers: sent }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

describe("request trust: Host, proxies and roles", function () {
  this.timeout(60_000);
  let stack: Stack;
  const servers: Server[] = [];

  before(startStack((started) => (stack = started)));
  after(async () => {
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    await cleanUp(stack);
  });

  /** The real app on its own port, with some settings changed. */
  async function appWith(config: Record<string, unknown>): Promise<string> {
    const server = createServer(createApp({ ...stack.server.deps, config: configWith(stack.server.deps.config, config) }).callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("while dev-login is on, refuses a foreign Host with 421 HOST_NOT_ALLOWED and serves loopback names and PUBLIC_URL's host", async () => {
    expect(stack.config.auth.DEV_LOGIN_ENABLED).to.equal(true);
    const port = new URL(stack.baseUrl).port;
    const foreign = await getWithHost(stack.baseUrl, "/api/v1/auth/demo-users", `rebind.attacker.example:${port}`);
    expect(foreign.status).to.equal(421);
    expect(foreign.body.error.code).to.equal("HOST_NOT_ALLOWED");
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await getWithHost(stack.baseUrl, "/api/v1/auth/demo-users", host)).status, host).to.equal(200);
    }

    const withPublicUrl = await appWith({ PUBLIC_URL: "https://learn.example.com" });
    expect((await getWithHost(withPublicUrl, "/api/v1/auth/demo-users", "learn.example.com")).status).to.equal(200);
    expect((await getWithHost(withPublicUrl, "/api/v1/auth/demo-users", "other.example.com")).status).to.equal(421);
    // Without dev-login there is no email-only sign-in to steal: any Host is served.
    const production = await appWith({ DEV_LOGIN_ENABLED: false });
    expect((await getWithHost(production, "/healthz", "rebind.attacker.example")).status).to.not.equal(421);
  });

  it("while dev-login is on, refuses rebinding names that merely start like loopback: no demo-user list, no sign-in", async () => {
    const port = new URL(stack.baseUrl).port;
    const [demo] = (await getWithHost(stack.baseUrl, "/api/v1/auth/demo-users", `127.0.0.1:${port}`)).body.users as Array<{ email: string }>;
    expect(demo, "the stack has demo users to steal").to.not.equal(undefined);
    const hostile = [
      "127.attacker.example",
      `127.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      "127.0.0.1.attacker.example.",
      `localhost.attacker.example:${port}`,
      `[::1].attacker.example:${port}`,
      `::1:${port}`,
      `user@127.0.0.1:${port}`,
    ];
    for (const host of hostile) {
      const list = await getWithHost(stack.baseUrl, "/api/v1/auth/demo-users", host);
      expect(list.status, host).to.equal(421);
      expect(list.body.error.code, host).to.equal("HOST_NOT_ALLOWED");
      const signIn = await getWithHost(stack.baseUrl, "/api/v1/auth/dev-login", host, {}, { email: demo!.email });
      expect(signIn.status, host).to.equal(421);
      expect(signIn.body.token, host).to.equal(undefined);
    }
    // Loopback however it is written: ports, a trailing dot, other 127/8 addresses, IPv4-mapped IPv6.
    for (const host of [
      `localhost.:${port}`,
      `LOCALHOST:${port}`,
      `127.0.0.2:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
      "127.0.0.1",
    ]) {
      expect((await getWithHost(stack.baseUrl, "/api/v1/auth/demo-users", host)).status, host).to.equal(200);
    }
    const signedIn = await getWithHost(stack.baseUrl, "/api/v1/auth/dev-login", `localhost.:${port}`, {}, { email: demo!.email });
    expect(signedIn.status).to.equal(200);
  });

  it("with TRUST_PROXY, takes the client IP as many entries from the right of X-Forwarded-For as it counts proxies", async () => {
    const url = await appWith({ TRUST_PROXY: 1, RATE_LIMIT_DEV_LOGIN_PER_MINUTE: 2 });
    // A documentation-prefix IPv6 address of its own: another suite counting dev-logins per address in the shared Redis cannot pick the same one.
    const client = `2001:db8:${randomBytes(6).toString("hex").match(/.{4}/g)!.join(":")}::1`;
    const login = (spoofed: string) =>
      api(url, "POST", "/api/v1/auth/dev-login", {
        body: { email: `nobody-${randomUUID().slice(0, 6)}@example.com` },
        headers: { "x-forwarded-for": `${spoofed}, ${client}` },
      });
    // A client writing a new leftmost entry each time is still one client: the third attempt is limited.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await login(`198.51.100.${i + 1}-${randomUUID().slice(0, 4)}`)).status);
    expect(statuses.slice(0, 2)).to.not.include(429);
    expect(statuses[2]).to.equal(429);
  });

  it("a demoted admin loses HTTP access to admin transcripts, as the socket join refuses", async () => {
    const admin = await freshUser(stack, { role: "admin" });
    scriptTurn(stack, { answer: "Nothing to do." });
    const turn = await askAdmin(stack, admin, "How many people are in Sales?");
    stack.llm.setResponder(null);
    const tutorSession = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: admin.token, body: { message: "hola", context: {} } });
    expect(tutorSession.status).to.equal(202);

    await stack.server.deps.db("users").where({ id: admin.id }).update({ role: "employee" });
    const listed = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=admin", { token: admin.token });
    expect(listed.status).to.equal(403);
    expect(listed.body.error.code).to.equal("FORBIDDEN");
    const all = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: admin.token });
    expect(all.status).to.equal(200);
    const ids = all.body.sessions.map((s: { id: string }) => s.id);
    expect(ids).to.include(tutorSession.body.session_id);
    expect(ids).to.not.include(turn.sessionId);
    const messages = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${turn.sessionId}/messages`, { token: admin.token });
    expect(messages.status).to.equal(403);
    expect(messages.body.error.code).to.equal("FORBIDDEN");
    expect(await join(admin.socket, { sessionId: turn.sessionId })).to.include({ ok: false });
  });
});
