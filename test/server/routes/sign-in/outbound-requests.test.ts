/**
 * The review's SSRF and secret recipes (F4, F8, F16) against the real stack: what an
 * organisation's admin (or an anonymous caller naming their issuer) can make the server request,
 * what the admin learns from it, and what reaches another organisation. Loopback servers stand for
 * the internal services and count every request they get; servers of our own run without the
 * test stack's loopback allowance (OUTBOUND_ALLOWED_CIDRS) where the test needs the default.
 */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { base64url } from "jose";
import { findFreePort } from "../../../../launcher/embedded/child-process";
import { parseConfig } from "../../../../lib/config";
import { SecretBox } from "../../../../lib/secret-box";
import { PublicUrlRequired } from "../../../../server/auth/sso/public-url-required";
import { startServer, type RunningServer } from "../../../../server/server";
import { api } from "../../../harness/client";
import { countingServer, discoveryOf, json, type CountingServer } from "../../../support/counting-server";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { startSsoWorld, type SsoWorld } from "../../../support/sso";
import { stackSuite } from "../../../support/suite";
import { DEMO_IDS } from "../../../../db/seeds/demo-ids";
import { testEnv } from "../../../support/tunables";

const PATH = "/api/v1/admin/identity-provider";

/** A JWT naming `issuer`, signed by nobody: what an anonymous caller can send. */
function madeUpToken(issuer: string): string {
  const part = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${part({ alg: "RS256", kid: "made-up" })}.${part({ iss: issuer, sub: "anyone", iat: 1, exp: 9_999_999_999 })}.AAAA`;
}

describe("requests to admin-chosen URLs (identity providers): guarded, bounded, generic", function () {
  const stack = stackSuite(this, { timeoutMs: 40_000, resetModel: false });
  let world: SsoWorld;
  let internal: CountingServer;
  const ownServers: RunningServer[] = [];
  const fakes: CountingServer[] = [];

  /** A server on the shared stack with these settings (dev-login off). */
  async function serverWith(env: Record<string, string>): Promise<RunningServer> {
    const config = parseConfig(
      testEnv({
        ...process.env,
        DEV_LOGIN_ENABLED: "false",
        SECRETS_KEY: randomBytes(32).toString("hex"),
        OIDC_HTTP_TIMEOUT_MS: "1500",
        ...env,
      }),
    );
    const server = await startServer(config, { port: 0, host: "127.0.0.1" });
    ownServers.push(server);
    return server;
  }

  async function fake(host: string, handler: Parameters<typeof countingServer>[1]): Promise<CountingServer> {
    const server = await countingServer(host, handler);
    fakes.push(server);
    return server;
  }

  const storedProvider = (orgId: string) => stack.server.deps.db("identity_providers").where({ org_id: orgId }).first();

  before(async function () {
    this.timeout(60_000);
    world = await startSsoWorld(stack);
    internal = await countingServer("127.0.0.1");
  });
  after(async () => {
    for (const server of ownServers) await Promise.race([server.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    for (const server of [...fakes, internal]) await server?.close();
    await world?.stop();
  });
  beforeEach(() => {
    internal.hits.length = 0;
  });

  it("an anonymous made-up token naming B's issuer makes no request to the internal jwks_uri B's discovery names; A is untouched", async () => {
    // B's "provider" is on an address the operator allowed (127.0.0.2); its discovery names the internal service as its keys.
    const port = await findFreePort();
    const issuer = `http://127.0.0.2:${port}`;
    const provider = await countingServer("127.0.0.2", json(discoveryOf(issuer, `http://127.0.0.1:${internal.port}/probe`)), port);
    fakes.push(provider);
    const server = await serverWith({ OUTBOUND_ALLOWED_CIDRS: "127.0.0.2/32" });
    const aBefore = await storedProvider(world.a.orgId);
    const saved = await api(server.url, "PUT", PATH, {
      token: world.b.adminToken,
      body: { display_name: "B's own", issuer, client_id: "b-app", client_secret: null, allowed_domains: [] },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);

    const answer = await api(server.url, "GET", "/api/v1/me", { token: madeUpToken(issuer) });
    expect(answer.status).to.equal(401);
    expect(answer.body.error.code).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    // The key lookup ran (B's discovery was read) and stopped at the jwks_uri's address: no request reached it.
    expect(provider.hits).to.include("/.well-known/openid-configuration");
    expect(server.deps.tokens.providerFetchCounts(issuer)).to.deep.include({ failures: 1 });
    expect(internal.hits).to.deep.equal([]);
    expect(await storedProvider(world.a.orgId)).to.deep.equal(aBefore);
  });

  it("refuses discovery of loopback without the allowance, by address or by a name resolving there, with one message for open, closed and HTTPS ports", async () => {
    const server = await serverWith({ OUTBOUND_ALLOWED_CIDRS: "" });
    const redisPort = new URL(stack.env.REDIS_URL!).port;
    const closed = await findFreePort();
    const before = await storedProvider(world.b.orgId);
    const messages = new Set<string>();
    for (const issuer of [
      `http://127.0.0.1:${internal.port}`,
      `http://127.0.0.1:${redisPort}`,
      `http://127.0.0.1:${closed}`,
      `http://localhost:${internal.port}`,
      `https://localhost:${internal.port}`,
      `http://[::ffff:127.0.0.1]:${internal.port}`,
      "http://169.254.169.254/latest/meta-data",
    ]) {
      const response = await api(server.url, "PUT", PATH, { token: world.b.adminToken, body: world.b.settings({ issuer }) });
      expect(response.status, issuer).to.equal(422);
      expect(response.body.error.code, issuer).to.equal("PROVIDER_UNREACHABLE");
      messages.add(response.body.error.message);
    }
    expect([...messages]).to.have.length(1);
    expect(internal.hits).to.deep.equal([]);
    expect(await storedProvider(world.b.orgId)).to.deep.equal(before);
  });

  it("with loopback allowed (the test stack's setting), an open non-OIDC port, a closed one, a silent one and a non-JSON one all read the same", async () => {
    const redisPort = new URL(stack.env.REDIS_URL!).port;
    const closed = await findFreePort();
    const silent = await fake("127.0.0.1", () => undefined);
    const html = await fake("127.0.0.1", (_req, res) => res.end("<html>not a provider</html>"));
    const messages = new Set<string>();
    for (const port of [redisPort, closed, silent.port, html.port]) {
      const response = await api(world.baseUrl, "PUT", PATH, { token: world.b.adminToken, body: world.b.settings({ issuer: `http://127.0.0.1:${port}` }) });
      expect(response.status, String(port)).to.equal(422);
      expect(response.body.error.code).to.equal("PROVIDER_UNREACHABLE");
      messages.add(response.body.error.message);
    }
    expect([...messages]).to.have.length(1);
  });

  it("cuts a 5 MB discovery answer at 1 MiB without blocking the event loop, and stores nothing", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const huge = await fake("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let sent = 0;
      const more = (): void => {
        while (sent < 5 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      res.write('{"issuer":"');
      more();
    });
    const before = await storedProvider(world.b.orgId);
    const response = await expectNoLongBlock("a 5 MB discovery document", () =>
      api(world.baseUrl, "PUT", PATH, { token: world.b.adminToken, body: world.b.settings({ issuer: `http://127.0.0.1:${huge.port}` }) }),
    );
    expect(response.status).to.equal(422);
    expect(response.body.error.code).to.equal("PROVIDER_UNREACHABLE");
    expect(await storedProvider(world.b.orgId)).to.deep.equal(before);
  });

  it("never sends a stored secret to a new issuer or client: the admin and the operator must give it again or clear it (F8)", async () => {
    const attacker = await fake("127.0.0.1", json(discoveryOf("http://127.0.0.1", "http://127.0.0.1/jwks")));
    const attackerIssuer = `http://127.0.0.1:${attacker.port}`;
    const operatorToken = await world.server.deps.tokens.sign({ userId: DEMO_IDS.adminId, orgId: DEMO_IDS.orgId, role: "admin" });
    // Both organisations as startSsoWorld saved them, each with its secret (an earlier case re-pointed B's).
    for (const org of [world.a, world.b]) expect((await api(world.baseUrl, "PUT", PATH, { token: org.adminToken, body: org.settings() })).status).to.equal(200);
    const [aBefore, bBefore] = [await storedProvider(world.a.orgId), await storedProvider(world.b.orgId)];
    const { client_secret: _a, ...aMoved } = world.a.settings({ issuer: attackerIssuer });
    const { client_secret: _b, ...bNewClient } = world.b.settings({ client_id: "someone-elses-client" });
    for (const [path, token, body] of [
      [PATH, world.a.adminToken, aMoved],
      [`/api/v1/ops/orgs/${world.b.orgId}/identity-provider`, operatorToken, { ...bNewClient, issuer: attackerIssuer }],
      [`/api/v1/ops/orgs/${world.b.orgId}/identity-provider`, operatorToken, bNewClient],
    ] as const) {
      const response = await api(world.baseUrl, "PUT", path, { token, body });
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.error.code).to.equal("CLIENT_SECRET_REQUIRED");
    }
    expect(attacker.hits, "the new issuer was never asked anything").to.deep.equal([]);
    expect(await storedProvider(world.a.orgId)).to.deep.equal(aBefore);
    expect(await storedProvider(world.b.orgId)).to.deep.equal(bBefore);

    // Cleared explicitly, the move is allowed and the new issuer gets no secret; B's secret is still B's.
    const cleared = await api(world.baseUrl, "PUT", PATH, {
      token: world.a.adminToken,
      body: { ...aMoved, issuer: world.idp.issuer, client_id: "a-public-client", client_secret: null },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
    expect(cleared.body.identity_provider.client_secret_set).to.equal(false);
    const b = await storedProvider(world.b.orgId);
    expect(new SecretBox(world.server.deps.config.auth.SECRETS_KEY!).open(b.client_secret_encrypted)).to.equal(world.b.clientSecret);
    const restored = await api(world.baseUrl, "PUT", PATH, { token: world.a.adminToken, body: world.a.settings() });
    expect(restored.status, JSON.stringify(restored.body)).to.equal(200);
  });

  it("in production, refuses to start with single sign-on configured and no PUBLIC_URL, and starts with it (F16)", async () => {
    const production = { NODE_ENV: "production", DEV_LOGIN_ENABLED: "false" };
    const refused = await serverWith(production).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(PublicUrlRequired);
    const started = await serverWith({ ...production, PUBLIC_URL: "https://learn.example.com" });
    const view = await api(started.url, "GET", PATH, { token: world.a.adminToken });
    expect(view.body.identity_provider.redirect_uri).to.equal("https://learn.example.com/api/v1/auth/oidc/callback");
  });
});
