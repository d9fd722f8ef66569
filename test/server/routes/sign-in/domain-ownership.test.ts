/**
 * An email domain belongs to the organisation that proves it (issue 44, point 2; review F2, F15),
 * with two organisations on a real stack, dev-login off and a DNS server of the test's own on
 * loopback: the squatting attack of the issue fails for the victim as well as for the abuser,
 * public mail domains cannot be claimed, a TXT record verifies (and nothing else does), the
 * operator may approve, a disabled or unverified provider offers and creates nobody, and the
 * People API and SCIM answer "kept by another organisation" one way whatever keeps it.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../../db/seeds/demo-ids";
import { api } from "../../../harness/client";
import { startTestDnsServer, type TestDnsServer } from "../../../support/dns-server";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { stackSuite } from "../../../support/suite";
import { CookieJar, hop, startSsoWorld, toCallback, unique, type SsoOrg, type SsoWorld } from "../../../support/sso";

const DOMAINS = "/api/v1/admin/identity-provider/domains";

describe("email domains: claimed by proof, not first come", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let world: SsoWorld;
  let dns: TestDnsServer;
  let operatorToken: string;

  before(async function () {
    this.timeout(60_000);
    dns = await startTestDnsServer();
    world = await startSsoWorld(stack, { env: { DNS_RESOLVERS: dns.address, TRUST_PROXY: "true" } });
    operatorToken = await world.server.deps.tokens.sign({ userId: DEMO_IDS.adminId, orgId: DEMO_IDS.orgId, role: "admin" });
  });
  after(async () => {
    await world?.stop();
    await dns?.close();
  });

  const db = () => stack.server.deps.db;
  const put = (org: SsoOrg, overrides: Record<string, unknown> = {}) =>
    api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: org.adminToken, body: org.settings(overrides) });
  /** The public lookup, each call from an address of its own unless one is given (it is limited per address). */
  const lookup = (email: string, ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`) =>
    api(world.baseUrl, "GET", `/api/v1/auth/providers?email=${encodeURIComponent(email)}`, { headers: { "x-forwarded-for": ip } });
  const claim = (org: SsoOrg, domain: string) => api(world.baseUrl, "POST", DOMAINS, { token: org.adminToken, body: { domain } });
  const verify = (org: SsoOrg, id: string) => api(world.baseUrl, "POST", `${DOMAINS}/${id}/verify`, { token: org.adminToken });
  const addPerson = (org: SsoOrg, email: string) =>
    api(world.baseUrl, "POST", "/api/v1/admin/people", { token: org.adminToken, body: { email, name: "New Hire" } });
  const status = (domain: string, orgId: string) => db()("organisation_domains").where({ domain, org_id: orgId }).first("status", "method");

  async function scimToken(org: SsoOrg): Promise<string> {
    const rotated = await api(world.baseUrl, "POST", "/api/v1/admin/scim/token", { token: org.adminToken });
    return rotated.body.token as string;
  }
  const scimCreate = (token: string, email: string) =>
    fetch(`${world.baseUrl}/scim/v2/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: email, name: { formatted: "Scim Person" }, active: true }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));

  /** A domain the victim (org A) uses for its people, as the example.com: not verified, no provider lists it. */
  async function victimDomain(people = 3): Promise<string> {
    const domain = `acme-${unique()}.test`;
    for (let i = 0; i < people; i += 1)
      await db()("users").insert({ org_id: world.a.orgId, email: `person${i}@${domain}`, name: `Person ${i}`, role: "employee", locale: "en" });
    return domain;
  }

  /** A sign-in through `org`'s provider, by its start URL (as the lookup would give it). */
  async function signInAt(org: SsoOrg, email: string) {
    await world.idp.addAccount({ sub: `sub-${unique()}`, email, password: world.password, name: "Idp Person", email_verified: true });
    const provider = await api(world.baseUrl, "GET", "/api/v1/admin/identity-provider", { token: org.adminToken });
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, `/api/v1/auth/oidc/${provider.body.identity_provider.id}/start`, { email, password: world.password });
    return hop(jar, callback);
  }

  it("the issue's attack fails: B's provider listing A's domain offers nothing, B cannot claim it, A still adds its people by API and SCIM", async () => {
    const acme = await victimDomain();
    // B lists A's domain under A's name, disabled first (the issue: even a disabled one claimed it), then enabled, with JIT.
    const disabled = await put(world.b, { display_name: "Acme Retail SSO", allowed_domains: [world.b.domain, acme], enabled: false, jit_enabled: true });
    expect(disabled.status, JSON.stringify(disabled.body)).to.equal(200);
    expect(disabled.body.identity_provider.allowed_domain_status).to.deep.equal({ [world.b.domain]: "verified", [acme]: "not_claimed" });
    expect((await addPerson(world.a, `new.hire@${acme}`)).status, "a disabled provider claims nothing").to.equal(201);
    const enabled = await put(world.b, { display_name: "Acme Retail SSO", allowed_domains: [world.b.domain, acme], jit_enabled: true });
    expect(enabled.status).to.equal(200);

    // The phishing button is never offered for A's domain.
    expect((await lookup(`someone@${acme}`)).body).to.deep.equal({ providers: [] });
    // B cannot claim it: A's people are on it.
    const squat = await claim(world.b, acme);
    expect([squat.status, squat.body.error?.code]).to.deep.equal([409, "DOMAIN_IN_USE"]);
    expect(await status(acme, world.b.orgId)).to.equal(undefined);
    // A adds its people, by the People API and by SCIM.
    const byApi = await addPerson(world.a, `second.hire@${acme}`);
    expect(byApi.status, JSON.stringify(byApi.body)).to.equal(201);
    const byScim = await scimCreate(await scimToken(world.a), `third.hire@${acme}`);
    expect(byScim.status, JSON.stringify(byScim.body)).to.equal(201);
    // And B's provider creates nobody of A's domain at first sign-in (JIT on, domain listed but not B's).
    const jit = await signInAt(world.b, `walk.in@${acme}`);
    expect(jit.body).to.include('<code id="code">DOMAIN_NOT_VERIFIED</code>');
    expect(
      await db()("users")
        .where({ email: `walk.in@${acme}` })
        .first(),
    ).to.equal(undefined);

    // B may still add an address there (nobody proved the domain yet), but that does not keep A from claiming it.
    expect((await addPerson(world.b, `squatter@${acme}`)).status).to.equal(201);
    // A proves the domain; from then on B's listing is refused and B cannot add A's people.
    const added = await claim(world.a, acme);
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    dns.publishTxt(added.body.domain.txt_record.name, added.body.domain.txt_record.value);
    expect((await verify(world.a, added.body.domain.id)).body.domain).to.include({ status: "verified", method: "dns" });
    const relisted = await put(world.b, { allowed_domains: [world.b.domain, acme] });
    expect([relisted.status, relisted.body.error?.code]).to.deep.equal([409, "DOMAIN_CLAIMED"]);
    expect([(await claim(world.b, acme)).body.error?.code]).to.deep.equal(["DOMAIN_CLAIMED"]);
    expect((await addPerson(world.b, `ceo@${acme}`)).body.error?.code).to.equal("EMAIL_UNAVAILABLE");
    // A's own provider, listing it, is the one offered.
    expect((await put(world.a, { allowed_domains: [world.a.domain, acme] })).status).to.equal(200);
    const found = await lookup(`someone@${acme}`);
    expect(found.body.providers.map((p: { display_name: string }) => p.display_name)).to.deep.equal([world.a.settings().display_name]);
    expect((await put(world.b)).status).to.equal(200);
  });

  it("refuses public mail domains (422 PUBLIC_EMAIL_DOMAIN), to an admin and to the operator, storing nothing", async () => {
    for (const domain of ["gmail.com", "outlook.com", "yahoo.com"]) {
      const refused = await claim(world.b, domain);
      expect([refused.status, refused.body.error?.code], domain).to.deep.equal([422, "PUBLIC_EMAIL_DOMAIN"]);
    }
    const approved = await api(world.baseUrl, "POST", `/api/v1/ops/orgs/${world.b.orgId}/domains/approve`, {
      token: operatorToken,
      body: { domain: "gmail.com" },
    });
    expect([approved.status, approved.body.error?.code]).to.deep.equal([422, "PUBLIC_EMAIL_DOMAIN"]);
    expect(await db()("organisation_domains").where({ domain: "gmail.com" }).first()).to.equal(undefined);
    // A person with a gmail address is still added anywhere (nobody owns gmail.com).
    expect((await addPerson(world.a, `someone.${unique()}@gmail.com`)).status).to.equal(201);
  });

  it("verifies by the TXT record looked up now: the right token only; a missing or wrong record, or DNS down, leaves it pending", async () => {
    const domain = `dns-${unique()}.test`;
    const added = await claim(world.b, domain);
    expect(added.status).to.equal(201);
    const { id, txt_record: record } = added.body.domain;
    expect(record.name).to.equal(`_skillnet-challenge.${domain}`);
    expect(record.value).to.match(/^skillnet-domain-verification=[0-9a-f]{32}$/);
    expect(added.body.domain).to.include({ status: "pending", method: null, verified_at: null });

    const missing = await verify(world.b, id);
    expect([missing.status, missing.body.error?.code]).to.deep.equal([409, "DOMAIN_TXT_MISSING"]);
    dns.publishTxt(record.name, "skillnet-domain-verification=0000", "v=spf1 -all");
    expect((await verify(world.b, id)).body.error?.code).to.equal("DOMAIN_TXT_MISSING");
    // Another organisation's claim of the same domain has its own token: A's record does not verify B.
    const rival = await claim(world.a, domain);
    expect(rival.status).to.equal(201);
    dns.publishTxt(record.name, rival.body.domain.txt_record.value);
    expect((await verify(world.b, id)).body.error?.code).to.equal("DOMAIN_TXT_MISSING");

    dns.publishTxt(record.name, record.value);
    dns.setMode("servfail");
    const servfail = await verify(world.b, id);
    expect([servfail.status, servfail.body.error?.code]).to.deep.equal([503, "DNS_LOOKUP_FAILED"]);
    dns.setMode("silent");
    const started = Date.now();
    const silent = await expectNoLongBlock("a resolver that never answers", () => verify(world.b, id));
    expect([silent.status, silent.body.error?.code]).to.deep.equal([503, "DNS_LOOKUP_FAILED"]);
    expect(Date.now() - started, "the lookup is bounded (5 s budget)").to.be.below(8_000);
    dns.setMode("answer");
    expect(await status(domain, world.b.orgId)).to.deep.equal({ status: "pending", method: null });

    const verified = await verify(world.b, id);
    expect(verified.status, JSON.stringify(verified.body)).to.equal(200);
    expect(verified.body.domain).to.include({ status: "verified", method: "dns" });
    expect(dns.queries(record.name)).to.be.greaterThan(5);
    const audit = await db()("audit_log").where({ org_id: world.b.orgId, target_id: id }).orderBy("created_at").select("action", "actor_id");
    expect(audit.map((row: { action: string }) => row.action)).to.deep.equal(["organisation_domain.added", "organisation_domain.verified"]);
    // The rival's pending claim can no longer be verified, even with its own record published.
    dns.publishTxt(record.name, rival.body.domain.txt_record.value);
    expect((await verify(world.a, rival.body.domain.id)).body.error?.code).to.equal("DOMAIN_CLAIMED");
    // Another organisation's domain id is 404 to A; removing gives it up.
    expect((await verify(world.a, id)).status).to.equal(404);
    expect((await api(world.baseUrl, "DELETE", `${DOMAINS}/${id}`, { token: world.b.adminToken })).status).to.equal(204);
    expect(await status(domain, world.b.orgId)).to.equal(undefined);
    const listed = await api(world.baseUrl, "GET", DOMAINS, { token: world.a.adminToken });
    expect(listed.body.domains.find((d: { domain: string }) => d.domain === domain)).to.include({ status: "pending" });
  });

  it("lets the operator approve a domain (even one other organisations have people on), nobody else", async () => {
    const shared = await victimDomain(1);
    expect((await claim(world.b, shared)).body.error?.code).to.equal("DOMAIN_IN_USE");
    const path = `/api/v1/ops/orgs/${world.b.orgId}/domains/approve`;
    expect((await api(world.baseUrl, "POST", path, { token: world.a.adminToken, body: { domain: shared } })).status).to.equal(403);
    const approved = await api(world.baseUrl, "POST", path, { token: operatorToken, body: { domain: shared } });
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.domain).to.include({ domain: shared, status: "verified", method: "operator" });
    const audited = await db()("audit_log")
      .where({ org_id: DEMO_IDS.orgId, action: "organisation_domain.approved", target_id: world.b.orgId })
      .whereRaw("after->>'domain' = ?", [shared])
      .first("details");
    expect(audited.details).to.include({ via: "api" });
    const listed = await api(world.baseUrl, "GET", `/api/v1/ops/orgs/${world.b.orgId}/domains`, { token: operatorToken });
    expect(listed.body.domains.map((d: { domain: string }) => d.domain)).to.include(shared);
    // Once one organisation has it verified, approving it for another is refused.
    const twice = await api(world.baseUrl, "POST", `/api/v1/ops/orgs/${world.a.orgId}/domains/approve`, { token: operatorToken, body: { domain: shared } });
    expect([twice.status, twice.body.error?.code]).to.deep.equal([409, "DOMAIN_CLAIMED"]);
    await db()("organisation_domains").where({ domain: shared }).delete();
  });

  it("offers nothing for a disabled provider's verified domain, and creates people just in time only on a verified domain", async () => {
    expect((await lookup(`x@${world.a.domain}`)).body.providers).to.have.length(1);
    expect((await put(world.a, { enabled: false })).status).to.equal(200);
    expect((await lookup(`x@${world.a.domain}`)).body).to.deep.equal({ providers: [] });
    expect((await put(world.a)).status).to.equal(200);

    const pending = `jit-${unique()}.test`;
    const claimed = await claim(world.b, pending);
    expect((await put(world.b, { allowed_domains: [world.b.domain, pending], jit_enabled: true })).status).to.equal(200);
    const early = await signInAt(world.b, `early@${pending}`);
    expect(early.body).to.include('<code id="code">DOMAIN_NOT_VERIFIED</code>');
    expect(
      await db()("users")
        .where({ email: `early@${pending}` })
        .first(),
    ).to.equal(undefined);
    dns.publishTxt(claimed.body.domain.txt_record.name, claimed.body.domain.txt_record.value);
    expect((await verify(world.b, claimed.body.domain.id)).status).to.equal(200);
    const late = await signInAt(world.b, `late@${pending}`);
    expect(late.status, late.body.slice(0, 300)).to.equal(303);
    expect(
      await db()("users")
        .where({ email: `late@${pending}` })
        .first("org_id"),
    ).to.deep.equal({ org_id: world.b.orgId });
    expect((await put(world.b)).status).to.equal(200);
  });

  it("answers one way for an address kept by another organisation, whether by its person or its verified domain (People API and SCIM)", async () => {
    // A's existing person on an unverified domain, and any address of A's verified domain.
    const unverified = await victimDomain(1);
    const byPerson = await addPerson(world.b, `person0@${unverified}`);
    const byDomain = await addPerson(world.b, `nobody-${unique()}@${world.a.domain}`);
    expect([byPerson.status, byPerson.body]).to.deep.equal([byDomain.status, byDomain.body]);
    expect(byPerson.body.error.code).to.equal("EMAIL_UNAVAILABLE");
    const token = await scimToken(world.b);
    const scimByPerson = await scimCreate(token, `person0@${unverified}`);
    const scimByDomain = await scimCreate(token, `nobody-${unique()}@${world.a.domain}`);
    expect([scimByPerson.status, scimByPerson.body]).to.deep.equal([scimByDomain.status, scimByDomain.body]);
    expect(scimByPerson.status).to.equal(409);
    // Renaming B's own person onto a kept address answers the same.
    const own = await scimCreate(token, `renamed-${unique()}@${world.b.domain}`);
    expect(own.status).to.equal(201);
    const renamed = await fetch(`${world.baseUrl}/scim/v2/Users/${own.body.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: JSON.stringify({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", path: "userName", value: `nobody-${unique()}@${world.a.domain}` }],
      }),
    });
    expect([renamed.status, await renamed.json()]).to.deep.equal([409, scimByDomain.body]);
    expect(JSON.stringify([byPerson.body, scimByPerson.body]))
      .not.to.include(world.a.orgId)
      .and.not.to.include(world.a.slug);
  });

  it("limits the public lookup per client IP and answers an unknown domain in the same shape", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const unknown = await lookup(`x@unknown-${unique()}.test`, ip);
    expect(unknown.body).to.deep.equal({ providers: [] });
    const limit = world.server.deps.config.rateLimits.RATE_LIMIT_SIGN_IN_PER_MINUTE;
    let last = unknown;
    for (let i = 1; i <= limit; i += 1) last = await lookup(`x@${world.a.domain}`, ip);
    expect([last.status, last.body.error?.code]).to.deep.equal([429, "RATE_LIMITED"]);
    expect((await lookup(`x@${world.a.domain}`)).status, "another address is not held back").to.equal(200);
  });
});
