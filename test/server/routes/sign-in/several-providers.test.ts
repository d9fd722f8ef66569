/**
 * Two ways in for one organisation, against two real OpenID Provider processes: staff on an
 * Entra-like provider for the organisation's own domain, contractors on a Google-like one for
 * theirs. Each is added and addressed by id (another organisation's admin gets 404 for it), the
 * sign-in lookup offers the right one by email domain and both by the organisation's link, each
 * provider signs its own person in through the one callback, and a staff address cannot sign in
 * through the contractors' provider. The single-provider routes answer 409 while there are two,
 * and work again once one is removed.
 */
import { expect } from "chai";
import { approveDomain } from "../../../../commands/organisation-domains";
import { DEMO_IDS } from "../../../../db/seeds/demo-ids";
import { api } from "../../../harness/client";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../../harness/oidc-provider";
import { CALLBACK, CookieJar, hop, startSsoWorld, toCallback, unique, type SsoWorld } from "../../../support/sso";
import { stackSuite } from "../../../support/suite";

const PROVIDERS = "/api/v1/admin/identity-providers";
const SINGLE = "/api/v1/admin/identity-provider";

describe("several identity providers in one organisation", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let world: SsoWorld;
  let google: TestIdentityProvider;
  const contractors = `contractors-${unique()}.test`;
  const googleClient = { id: `skillnet-google-${unique()}`, secret: `secret-${unique()}${unique()}` };
  let staffProviderId: string;
  let contractorsProviderId: string;

  before(async function () {
    this.timeout(60_000);
    world = await startSsoWorld(stack);
    google = await startTestIdentityProvider({
      clients: [
        {
          client_id: googleClient.id,
          client_secret: googleClient.secret,
          redirect_uris: [`${world.baseUrl}${CALLBACK}`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
        },
      ],
    });
    await approveDomain(world.server.deps, { via: "cli" }, world.a.orgId, contractors);
    staffProviderId = (await api(world.baseUrl, "GET", SINGLE, { token: world.a.adminToken })).body.identity_provider.id;
  });
  after(async () => {
    await google?.stop();
    await world?.stop();
  });

  const contractorsSettings = (overrides: Record<string, unknown> = {}) => ({
    display_name: "Contractors (Google)",
    issuer: google.issuer,
    client_id: googleClient.id,
    client_secret: googleClient.secret,
    allowed_domains: [contractors],
    jit_enabled: true,
    ...overrides,
  });

  async function signIn(startUrl: string, who: { email: string; password: string }) {
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, `${startUrl}?return_to=/`, who);
    return hop(jar, callback);
  }

  it("adds a second provider by id, refuses a domain the first signs in, and keeps each organisation to its own", async () => {
    const overlap = await api(world.baseUrl, "POST", PROVIDERS, {
      token: world.a.adminToken,
      body: contractorsSettings({ allowed_domains: [world.a.domain] }),
    });
    expect([overlap.status, overlap.body.error.code, overlap.body.error.provider_id]).to.deep.equal([409, "DOMAIN_HAS_PROVIDER", staffProviderId]);

    const added = await api(world.baseUrl, "POST", PROVIDERS, { token: world.a.adminToken, body: contractorsSettings() });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body.identity_provider).to.include({ protocol: "oidc", issuer: google.issuer, client_secret_set: true, jit_enabled: true });
    expect(added.body.identity_provider.redirect_uri).to.equal(`${world.baseUrl}${CALLBACK}`);
    contractorsProviderId = added.body.identity_provider.id;

    const listed = await api(world.baseUrl, "GET", PROVIDERS, { token: world.a.adminToken });
    expect(listed.body.identity_providers.map((p: { id: string }) => p.id)).to.deep.equal([contractorsProviderId, staffProviderId]);
    const single = await api(world.baseUrl, "GET", SINGLE, { token: world.a.adminToken });
    expect([single.status, single.body.error.code]).to.deep.equal([409, "SEVERAL_IDENTITY_PROVIDERS"]);
    const singlePut = await api(world.baseUrl, "PUT", SINGLE, { token: world.a.adminToken, body: world.a.settings() });
    expect([singlePut.status, singlePut.body.error.code]).to.deep.equal([409, "SEVERAL_IDENTITY_PROVIDERS"]);

    // Organisation B's admin: A's provider is not found, whatever the verb.
    const foreign = `${PROVIDERS}/${contractorsProviderId}`;
    for (const [method, body] of [["GET"], ["PUT", contractorsSettings({ allowed_domains: [] })], ["DELETE"], ["POST"]] as const) {
      const path = method === "POST" ? `${foreign}/test` : foreign;
      const answer = await api(world.baseUrl, method, path, { token: world.b.adminToken, ...(body ? { body } : {}) });
      expect([method, answer.status, answer.body?.error?.code]).to.deep.equal([method, 404, "NOT_FOUND"]);
    }
    const mine = await api(world.baseUrl, "GET", foreign, { token: world.a.adminToken });
    expect(mine.body.identity_provider.allowed_domain_status).to.deep.equal({ [contractors]: "verified" });
    // The operator sees both through the organisation's route.
    const operatorToken = await world.server.deps.tokens.sign({ userId: DEMO_IDS.adminId, orgId: DEMO_IDS.orgId, role: "admin" });
    const ops = await api(world.baseUrl, "GET", `/api/v1/ops/orgs/${world.a.orgId}/identity-providers`, { token: operatorToken });
    expect(ops.body.identity_providers).to.have.length(2);
  });

  it("offers each email domain its provider and the organisation's link both; each provider signs its own person in", async () => {
    const lookup = async (query: string) =>
      (await api(world.baseUrl, "GET", `/api/v1/auth/providers?${query}`)).body.providers as Array<Record<string, string>>;
    const [staffEntry] = await lookup(`email=sam@${world.a.domain}`);
    expect(staffEntry).to.deep.equal({
      id: staffProviderId,
      display_name: world.a.settings().display_name,
      protocol: "oidc",
      start_url: `/api/v1/auth/oidc/${staffProviderId}/start`,
    });
    expect((await lookup(`email=cleo@${contractors}`)).map((p) => p.id)).to.deep.equal([contractorsProviderId]);
    expect((await lookup(`org=${world.a.slug}`)).map((p) => p.id)).to.deep.equal([contractorsProviderId, staffProviderId]);
    expect(await lookup(`org=${world.b.slug}`), "the other organisation's link offers only its own").to.have.length(1);

    const db = stack.server.deps.db;
    const sam = { sub: `sam-${unique()}`, email: `sam-${unique()}@${world.a.domain}`, password: world.password, name: "Sam Staff" };
    await db("users").insert({ org_id: world.a.orgId, email: sam.email, name: sam.name, role: "employee", locale: "en" });
    await world.idp.addAccount(sam);
    const cleo = { sub: `cleo-${unique()}`, email: `cleo-${unique()}@${contractors}`, password: world.password, name: "Cleo Contractor" };
    await google.addAccount(cleo);

    const samLanded = await signIn(staffEntry!.start_url!, sam);
    expect(samLanded.status, samLanded.body.slice(0, 300)).to.equal(303);
    const cleoLanded = await signIn(`/api/v1/auth/oidc/${contractorsProviderId}/start`, cleo);
    expect(cleoLanded.status, cleoLanded.body.slice(0, 300)).to.equal(303);
    const links = await db("identity_links").whereIn("subject", [sam.sub, cleo.sub]).orderBy("subject", "desc").select("subject", "provider_id", "issuer");
    expect(links).to.deep.equal([
      { subject: sam.sub, provider_id: staffProviderId, issuer: world.idp.issuer },
      { subject: cleo.sub, provider_id: contractorsProviderId, issuer: google.issuer },
    ]);
    const created = await db("users").where({ email: cleo.email }).first("org_id", "provisioned_via");
    expect(created).to.deep.equal({ org_id: world.a.orgId, provisioned_via: "jit" });

    // A staff address at the contractors' provider: that provider's domains exclude it, so nobody is signed in.
    const stray = { sub: `stray-${unique()}`, email: `stray-${unique()}@${world.a.domain}`, password: world.password };
    await db("users").insert({ org_id: world.a.orgId, email: stray.email, name: "Stray", role: "employee", locale: "en" });
    await google.addAccount(stray);
    const refused = await signIn(`/api/v1/auth/oidc/${contractorsProviderId}/start`, stray);
    expect(refused.body).to.include('<code id="code">DOMAIN_NOT_ALLOWED</code>');
    expect(refused.status).to.equal(403);
    expect(await db("identity_links").where({ subject: stray.sub }).first()).to.equal(undefined);
  });

  it("removes one provider by id, keeping the other, after which the single-provider routes answer again", async () => {
    const removed = await api(world.baseUrl, "DELETE", `${PROVIDERS}/${contractorsProviderId}`, { token: world.a.adminToken });
    expect(removed.status).to.equal(204);
    const single = await api(world.baseUrl, "GET", SINGLE, { token: world.a.adminToken });
    expect(single.status).to.equal(200);
    expect(single.body.identity_provider.id).to.equal(staffProviderId);
    const audit = await stack.server.deps
      .db("audit_log")
      .where({ org_id: world.a.orgId, target_id: contractorsProviderId })
      .orderBy("created_at")
      .pluck("action");
    expect(audit).to.deep.equal(["identity_provider.created", "identity_provider.removed"]);
  });
});
