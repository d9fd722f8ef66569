/**
 * The identity-provider settings API, for an organisation's admin and for the operator: input
 * refused with codes (a bad issuer is discovered and refused before anything is stored), the
 * client secret sealed and never returned, every change audited, each organisation only its own.
 */
import { expect } from "chai";
import { findFreePort } from "../../../../launcher/embedded/child-process";
import { DEMO_IDS } from "../../../../db/seeds/demo-ids";
import { api } from "../../../harness/client";
import { startSsoWorld, type SsoWorld } from "../../../support/sso";
import { stackSuite } from "../../../support/suite";

const PATH = "/api/v1/admin/identity-provider";

describe("identity-provider settings API", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let world: SsoWorld;
  let operatorToken: string;

  before(async function () {
    this.timeout(60_000);
    // Behind a (pretend) proxy, so the rate-limit case below counts an address of its own: the limit
    // is per client IP in the shared Redis, and other suites start sign-ins from 127.0.0.1 meanwhile.
    world = await startSsoWorld(stack, { env: { RATE_LIMIT_SIGN_IN_PER_MINUTE: "3", TRUST_PROXY: "true" } });
    operatorToken = await world.server.deps.tokens.sign({ userId: DEMO_IDS.adminId, orgId: DEMO_IDS.orgId, role: "admin" });
  });
  after(() => world?.stop());

  it("answers the settings without the secret, stores it sealed, and audits each change", async () => {
    const got = await api(world.baseUrl, "GET", PATH, { token: world.a.adminToken });
    expect(got.status).to.equal(200);
    const view = got.body.identity_provider;
    expect(view).to.include({ org_id: world.a.orgId, client_id: world.a.clientId, client_secret_set: true, issuer: world.idp.issuer });
    expect(view.redirect_uri).to.equal(`${world.baseUrl}/api/v1/auth/oidc/callback`);
    expect(JSON.stringify(got.body)).to.not.include(world.a.clientSecret);
    const row = await stack.server.deps.db("identity_providers").where({ org_id: world.a.orgId }).first();
    expect(row.client_secret_encrypted).to.match(/^v1\./).and.not.include(world.a.clientSecret);

    // Omitting the secret keeps it; the audit rows never carry it.
    const { client_secret: _omitted, ...withoutSecret } = world.a.settings({ display_name: "Renamed IdP" });
    const kept = await api(world.baseUrl, "PUT", PATH, { token: world.a.adminToken, body: withoutSecret });
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect(kept.body.identity_provider).to.include({ display_name: "Renamed IdP", client_secret_set: true });
    const audit = await stack.server.deps.db("audit_log").where({ org_id: world.a.orgId }).whereLike("action", "identity_provider.%").orderBy("created_at");
    expect(audit.map((a: { action: string }) => a.action)).to.deep.equal(["identity_provider.created", "identity_provider.updated"]);
    expect(JSON.stringify(audit)).to.not.include(world.a.clientSecret);
    expect(audit[1].after.display_name).to.equal("Renamed IdP");
  });

  it("refuses bad input with codes and keeps what was stored", async () => {
    const before = (await api(world.baseUrl, "GET", PATH, { token: world.b.adminToken })).body.identity_provider;
    const closed = await findFreePort();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [world.b.settings({ issuer: `http://127.0.0.1:${closed}` }), 422, "PROVIDER_UNREACHABLE"],
      [world.b.settings({ issuer: "http://idp.example.com" }), 422, "PROVIDER_UNREACHABLE"],
      [world.b.settings({ issuer: "ftp://idp.example.com" }), 400, "VALIDATION_ERROR"],
      [world.b.settings({ allowed_domains: ["not a domain"] }), 400, "VALIDATION_ERROR"],
      [world.b.settings({ claim_mapping: { admin_groups: "admins" } }), 400, "VALIDATION_ERROR"],
      [world.b.settings({ claim_mapping: { surprise: "x" } }), 400, "VALIDATION_ERROR"],
      [world.b.settings({ client_secret_encrypted: "v1.forged" }), 400, "VALIDATION_ERROR"],
      [{ issuer: world.idp.issuer }, 400, "VALIDATION_ERROR"],
    ];
    for (const [body, status, code] of cases) {
      const response = await api(world.baseUrl, "PUT", PATH, { token: world.b.adminToken, body });
      expect(response.status, JSON.stringify(body)).to.equal(status);
      expect(response.body.error.code, JSON.stringify(body)).to.equal(code);
    }
    const after = (await api(world.baseUrl, "GET", PATH, { token: world.b.adminToken })).body.identity_provider;
    expect(after).to.deep.equal(before);
  });

  it("refuses an issuer that hangs within OIDC_HTTP_TIMEOUT_MS", async () => {
    await world.idp.hang(20_000);
    try {
      const started = performance.now();
      const response = await api(world.baseUrl, "PUT", PATH, { token: world.b.adminToken, body: world.b.settings() });
      expect(response.status).to.equal(422);
      expect(response.body.error.code).to.equal("PROVIDER_UNREACHABLE");
      expect(performance.now() - started).to.be.below(3_000);
    } finally {
      await world.idp.hang(0);
    }
  });

  it("is for admins of the organisation; the operator may set any organisation's, nobody else may", async () => {
    const employee = await stack.server.deps
      .db("users")
      .insert({ org_id: world.a.orgId, email: `emp-${Date.now()}@${world.a.domain}`, name: "Emp", role: "employee", locale: "en" })
      .returning("id");
    const employeeToken = await world.server.deps.tokens.sign({ userId: employee[0].id, orgId: world.a.orgId, role: "employee" });
    expect((await api(world.baseUrl, "GET", PATH, { token: employeeToken })).status).to.equal(403);
    expect((await api(world.baseUrl, "GET", PATH)).status).to.equal(401);

    const opsPath = `/api/v1/ops/orgs/${world.b.orgId}/identity-provider`;
    expect((await api(world.baseUrl, "GET", opsPath, { token: world.a.adminToken })).status, "an admin of another org is not the operator").to.equal(403);
    const set = await api(world.baseUrl, "PUT", opsPath, { token: operatorToken, body: world.b.settings({ display_name: "Set by ops" }) });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.identity_provider).to.include({ org_id: world.b.orgId, display_name: "Set by ops" });
    const audited = await stack.server.deps
      .db("audit_log")
      .where({ org_id: world.b.orgId, actor_id: DEMO_IDS.adminId, action: "identity_provider.updated" })
      .first();
    expect(audited).to.not.equal(undefined);
    // A's admin still sees A's provider only.
    expect((await api(world.baseUrl, "GET", PATH, { token: world.a.adminToken })).body.identity_provider.org_id).to.equal(world.a.orgId);
    expect(
      (await api(world.baseUrl, "GET", "/api/v1/ops/orgs/00000000-0000-4000-8000-000000000000/identity-provider", { token: operatorToken })).status,
    ).to.equal(404);
  });

  it("limits sign-in starts per client IP (each keeps a pending sign-in in Redis)", async () => {
    const start = `/api/v1/auth/oidc/${(await api(world.baseUrl, "GET", PATH, { token: world.a.adminToken })).body.identity_provider.id}/start`;
    const client = `198.51.100.${Math.floor(Math.random() * 250) + 1}, 203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await api(world.baseUrl, "GET", start, { headers: { "x-forwarded-for": client } })).status);
    expect(statuses).to.deep.equal([302, 302, 302, 429]);
    // Another address is not held back by that one's starts.
    expect((await api(world.baseUrl, "GET", start, { headers: { "x-forwarded-for": "192.0.2.77" } })).status).to.equal(302);
  });

  it("deletes (audited); sign-in discovery then finds nothing for that domain", async () => {
    const opsPath = `/api/v1/ops/orgs/${world.b.orgId}/identity-provider`;
    expect((await api(world.baseUrl, "DELETE", opsPath, { token: operatorToken })).status).to.equal(204);
    expect((await api(world.baseUrl, "DELETE", opsPath, { token: operatorToken })).status).to.equal(404);
    // From an address of its own: this world allows 3 lookups a minute per address (RATE_LIMIT_SIGN_IN_PER_MINUTE), and the file made more.
    const lookup = await api(world.baseUrl, "GET", `/api/v1/auth/providers?email=x@${world.b.domain}`, { headers: { "x-forwarded-for": "192.0.2.78" } });
    expect(lookup.body).to.deep.equal({ providers: [] });
    expect((await api(world.baseUrl, "GET", PATH, { token: world.b.adminToken })).body).to.deep.equal({ identity_provider: null });
    const removed = await stack.server.deps.db("audit_log").where({ org_id: world.b.orgId, action: "identity_provider.removed" }).first();
    expect(removed.before.client_secret_set).to.equal(true);
  });
});
