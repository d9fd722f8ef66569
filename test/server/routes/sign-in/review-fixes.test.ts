/**
 * What a review of single sign-on found, each case once: an email domain signs people in to one
 * organisation only (a second organisation listing a company's domain could sign its new people
 * into itself), `email_verified` vouches only for the standard `email` claim unless the provider
 * is trusted for it (Entra ID sends no such claim), turning a provider off or removing it ends the
 * sessions it began, NUL characters are bad input rather than a 500, and two SCIM token rotations
 * at once do not collide.
 */
import { expect } from "chai";
import { api } from "../../../harness/client";
import { stackSuite } from "../../../support/suite";
import { CookieJar, hop, refresh, startPathOf, startSsoWorld, toCallback, unique, type SsoWorld } from "../../../support/sso";

describe("single sign-on: trust between organisations and what ends a session", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let world: SsoWorld;

  before(async function () {
    this.timeout(60_000);
    world = await startSsoWorld(stack);
  });
  after(() => world?.stop());

  const put = (token: string, body: Record<string, unknown>) => api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token, body });

  /** Signs `email` in at org A's provider (an account of org A with that email exists). */
  async function signedIn(email: string, extra: Record<string, unknown> = {}): Promise<{ jar: CookieJar; landed: { status: number; body: string } }> {
    await stack.server.deps
      .db("users")
      .insert({ org_id: world.a.orgId, email, name: "Test Person", role: "employee", locale: "en" })
      .onConflict("email")
      .ignore();
    await world.idp.addAccount({ sub: `sub-${unique()}`, email, password: world.password, name: "Test Person", ...extra });
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), { email, password: world.password });
    return { jar, landed: await hop(jar, callback) };
  }

  it("refuses a domain another organisation has verified (409 DOMAIN_CLAIMED, nothing saved), and adding a person of it", async () => {
    const claimed = await put(world.b.adminToken, world.b.settings({ allowed_domains: [world.b.domain, world.a.domain] }));
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(409);
    expect(claimed.body.error).to.include({ code: "DOMAIN_CLAIMED" });
    expect(claimed.body.error.message).to.include(world.a.domain);
    const stored = await api(world.baseUrl, "GET", "/api/v1/admin/identity-provider", { token: world.b.adminToken });
    expect(stored.body.identity_provider.allowed_domains).to.deep.equal([world.b.domain]);
    const found = await api(world.baseUrl, "GET", `/api/v1/auth/providers?email=someone@${world.a.domain}`);
    expect(found.body.providers.map((p: { id: string }) => p.id)).to.have.length(1);

    const squat = await api(world.baseUrl, "POST", "/api/v1/admin/people", {
      token: world.b.adminToken,
      body: { email: `ceo-${unique()}@${world.a.domain}`, name: "Not Theirs" },
    });
    expect(squat.status, JSON.stringify(squat.body)).to.equal(409);
    // One answer for "kept by another organisation", whether by its people or its verified domain (review F15).
    expect(squat.body.error.code).to.equal("EMAIL_UNAVAILABLE");
    // Its own domain still works.
    const own = await api(world.baseUrl, "POST", "/api/v1/admin/people", {
      token: world.b.adminToken,
      body: { email: `new-${unique()}@${world.b.domain}`, name: "Theirs" },
    });
    expect(own.status, JSON.stringify(own.body)).to.equal(201);
  });

  it("reads email_verified only for the standard email claim; a trusted provider (Entra ID) signs in without it", async () => {
    const email = `entra-${unique()}@${world.a.domain}`;
    // Mapped to another claim (here `name`, which a person may often edit themselves), the provider's
    // `email_verified: true` — about `email` — does not vouch for it.
    expect((await put(world.a.adminToken, world.a.settings({ claim_mapping: { email: "name" } }))).status).to.equal(200);
    await stack.server.deps.db("users").insert({ org_id: world.a.orgId, email, name: "Entra Person", role: "employee", locale: "en" });
    const other = `other-${unique()}@${world.a.domain}`;
    await world.idp.addAccount({ sub: `sub-${unique()}`, email: other, password: world.password, name: email, email_verified: true });
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), { email: other, password: world.password });
    const remapped = await hop(jar, callback);
    expect(remapped.body).to.include('<code id="code">EMAIL_NOT_VERIFIED</code>');

    // Entra sends no email_verified at all: only a provider trusted for its email claim signs in by it.
    expect((await put(world.a.adminToken, world.a.settings())).status).to.equal(200);
    const untrusted = await signedIn(email, { email_verified: false });
    expect(untrusted.landed.body).to.include('<code id="code">EMAIL_NOT_VERIFIED</code>');
    expect((await put(world.a.adminToken, world.a.settings({ claim_mapping: { trust_email: true } }))).status).to.equal(200);
    const trusted = await signedIn(email, { email_verified: false });
    expect(trusted.landed.status, trusted.landed.body.slice(0, 300)).to.equal(303);
    expect((await put(world.a.adminToken, world.a.settings())).status).to.equal(200);
  });

  it("ends the browser sessions a provider began when it is turned off or removed", async () => {
    const first = await signedIn(`session-${unique()}@${world.a.domain}`);
    expect(first.landed.status, first.landed.body.slice(0, 300)).to.be.oneOf([303]);
    expect((await refresh(world, first.jar)).status).to.equal(200);
    expect((await put(world.a.adminToken, world.a.settings({ enabled: false }))).status).to.equal(200);
    const afterDisable = await refresh(world, first.jar);
    expect(afterDisable.status).to.equal(401);
    expect(JSON.parse(afterDisable.body).error.code).to.equal("REFRESH_TOKEN_INVALID");

    expect((await put(world.a.adminToken, world.a.settings({ enabled: true }))).status).to.equal(200);
    const second = await signedIn(`removed-${unique()}@${world.a.domain}`);
    expect((await refresh(world, second.jar)).status).to.equal(200);
    expect((await api(world.baseUrl, "DELETE", "/api/v1/admin/identity-provider", { token: world.a.adminToken })).status).to.equal(204);
    expect((await refresh(world, second.jar)).status).to.equal(401);
    expect((await put(world.a.adminToken, world.a.settings())).status).to.equal(200);
  });

  it("answers NUL characters with 400 naming the field, on JSON routes and on SCIM, storing nothing", async () => {
    const settings = await put(world.a.adminToken, world.a.settings({ display_name: "Evil\u0000Name" }));
    expect(settings.status).to.equal(400);
    expect(settings.body.error).to.include({ code: "VALIDATION_ERROR" });
    expect(settings.body.error.message).to.include("body.display_name");
    const person = await api(world.baseUrl, "POST", "/api/v1/admin/people", {
      token: world.a.adminToken,
      body: { email: `nul-${unique()}@${world.a.domain}`, name: "A\u0000B" },
    });
    expect(person.status).to.equal(400);
    const search = await api(world.baseUrl, "GET", "/api/v1/admin/people?search=a%00b", { token: world.a.adminToken });
    expect(search.status).to.equal(400);

    const rotated = await api(world.baseUrl, "POST", "/api/v1/admin/scim/token", { token: world.a.adminToken });
    const scimToken = rotated.body.token as string;
    const scim = await fetch(`${world.baseUrl}/scim/v2/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `x\u0000@${world.a.domain}`, active: true }),
    });
    expect(scim.status).to.equal(400);
    expect(await scim.json()).to.include({ scimType: "invalidValue" });
    const filtered = await fetch(`${world.baseUrl}/scim/v2/Users?filter=${encodeURIComponent('userName eq "a\u0000b"')}`, {
      headers: { authorization: `Bearer ${scimToken}` },
    });
    expect(filtered.status).to.equal(400);
  });

  it("rotates the SCIM token twice at once without an error: one token is left, the last one", async () => {
    const [one, two] = await Promise.all([
      api(world.baseUrl, "POST", "/api/v1/admin/scim/token", { token: world.b.adminToken }),
      api(world.baseUrl, "POST", "/api/v1/admin/scim/token", { token: world.b.adminToken }),
    ]);
    expect([one.status, two.status])
      .to.deep.equal([one.status, one.status])
      .and.to.satisfy((s: number[]) => s.every((x) => x >= 200 && x < 300));
    const rows = await stack.server.deps.db("scim_tokens").where({ org_id: world.b.orgId });
    expect(rows).to.have.length(1);
    const works = await Promise.all(
      [one, two].map(async (answer) => (await fetch(`${world.baseUrl}/scim/v2/Users`, { headers: { authorization: `Bearer ${answer.body.token}` } })).status),
    );
    expect(works.sort()).to.deep.equal([200, 401]);
  });
});
