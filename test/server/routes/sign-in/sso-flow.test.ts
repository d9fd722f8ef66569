/**
 * Single sign-on end to end over HTTP, against a real OpenID Provider process (oidc-provider)
 * whose login form is filled like a browser would, with two organisations on the same issuer:
 * the happy path into a session that refreshes and reaches /api/v1/me, and every way the
 * callback must sign nobody in (state, binding, replay, nonce, email, domain, organisation,
 * deactivation, an outage), JIT on and off, role sync, refresh rotation and sign-out.
 */
import { createHash } from "node:crypto";
import { expect } from "chai";
import { api } from "../../../harness/client";
import { stackSuite } from "../../../support/suite";
import { CALLBACK, CookieJar, hop, refresh, startPathOf, startSsoWorld, toCallback, unique, type SsoWorld } from "../../../support/sso";

const STATE_PREFIX = "skillnet:sso:state:";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("single sign-on: the flow, the session and its refusals", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let world: SsoWorld;
  let password: string;
  const account = (name: string, extra: Record<string, unknown> = {}) => ({
    sub: `${name}-${unique()}`,
    email: "",
    password,
    name: `${name} Person`,
    ...extra,
  });

  /** A person at the provider (and, unless `noRow`, an account of `orgId` with the same email). */
  async function person(name: string, options: { orgId?: string; domain?: string; noRow?: boolean; extra?: Record<string, unknown> } = {}) {
    const domain = options.domain ?? world.a.domain;
    const entry = { ...account(name, options.extra), email: `${name}-${unique()}@${domain}` };
    await world.idp.addAccount(entry);
    let userId: string | undefined;
    if (!options.noRow) {
      [{ id: userId }] = await stack.server.deps
        .db("users")
        .insert({ org_id: options.orgId ?? world.a.orgId, email: entry.email, name: entry.name, role: "employee", locale: "en" })
        .returning("id");
    }
    return { ...entry, userId };
  }

  async function signIn(who: { email: string; password: string }, org = world.a, returnTo = "/") {
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, org, returnTo), who);
    return { jar, callback, landed: await hop(jar, callback) };
  }

  const refusedWith = (landed: { status: number; body: string }, code: string, status = 403) => {
    expect(landed.body, landed.body.slice(0, 300)).to.include(`<code id="code">${code}</code>`);
    expect(landed.status).to.equal(status);
  };

  before(async function () {
    this.timeout(60_000);
    world = await startSsoWorld(stack);
    password = world.password;
  });
  after(() => world?.stop());

  it("signs a known person in: 303 to the page, a Strict refresh cookie, no token in any URL; refresh mints a token /me accepts", async () => {
    const alice = await person("alice");
    const { jar, callback, landed } = await signIn(alice);
    expect(callback.searchParams.has("code")).to.equal(true);
    expect(landed.status).to.equal(303);
    expect(landed.location).to.equal("/");
    const cookie = jar.get("skillnet_refresh");
    expect(cookie?.path).to.equal("/api/v1/auth");
    expect(cookie?.attributes.toLowerCase()).to.include("httponly").and.include("samesite=strict");
    expect(jar.get("skillnet_sso"), "the binding cookie is spent").to.equal(undefined);

    const refreshed = await refresh(world, jar);
    expect(refreshed.status, refreshed.body).to.equal(200);
    const body = JSON.parse(refreshed.body);
    expect(body).to.include({ token_type: "Bearer", expires_in: 900 });
    expect(body.user.email).to.equal(alice.email);
    const me = await api(world.baseUrl, "GET", "/api/v1/me", { token: body.access_token });
    expect(me.status).to.equal(200);
    expect(me.body.user.id).to.equal(alice.userId);
    const link = await stack.server.deps.db("identity_links").where({ subject: alice.sub }).first();
    expect(link.org_id).to.equal(world.a.orgId);
  });

  it("finds the button by email domain or slug, enabled providers only, and answers an unknown domain with the same shape", async () => {
    const byEmail = await api(world.baseUrl, "GET", `/api/v1/auth/providers?email=someone@${world.b.domain}`);
    expect(byEmail.body.providers.map((p: { display_name: string }) => p.display_name)).to.deep.equal([world.b.settings().display_name]);
    expect((await api(world.baseUrl, "GET", "/api/v1/auth/providers?email=someone@nowhere-at-all.test")).body).to.deep.equal({ providers: [] });
    expect((await api(world.baseUrl, "GET", "/api/v1/auth/providers?org=no-such-org")).body).to.deep.equal({ providers: [] });
    expect((await api(world.baseUrl, "GET", "/api/v1/auth/providers?email=not-an-email")).body).to.deep.equal({ providers: [] });
    const evil = await api(world.baseUrl, "GET", `${byEmail.body.providers[0].start_url}?return_to=https://evil.example`);
    expect([evil.status, evil.body.error.code], "return_to is / or /admin only: no open redirect").to.deep.equal([400, "VALIDATION_ERROR"]);
  });

  it("refuses a wrong, a missing and a replayed state, and a callback opened in another browser", async () => {
    const alice = await person("alice2");
    const garbage = await hop(new CookieJar(), new URL(`${CALLBACK}?code=abc&state=${"x".repeat(43)}`, world.baseUrl));
    refusedWith(garbage, "SIGN_IN_STATE_INVALID", 400);
    refusedWith(await hop(new CookieJar(), new URL(`${CALLBACK}?code=abc`, world.baseUrl)), "SIGN_IN_STATE_INVALID", 400);

    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), alice);
    const elsewhere = await hop(new CookieJar(), callback);
    refusedWith(elsewhere, "SIGN_IN_STATE_INVALID", 400);
    // The foreign attempt spent the state: the real browser cannot finish either (no half-used sign-ins linger).
    refusedWith(await hop(jar, callback), "SIGN_IN_STATE_INVALID", 400);

    const again = await signIn(alice);
    expect(again.landed.status).to.equal(303);
    const replayed = await hop(again.jar, again.callback);
    refusedWith(replayed, "SIGN_IN_STATE_INVALID", 400);
    expect(replayed.location).to.equal(null);
  });

  it("refuses a replayed code and a tampered nonce (openid-client's checks), signing nobody in", async () => {
    const redis = stack.server.deps.redis;
    const alice = await person("alice3");
    // Replayed code: keep the pending record and the binding, use the callback, then put them back and replay it.
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), alice);
    const key = `${STATE_PREFIX}${callback.searchParams.get("state")}`;
    const record = (await redis.get(key))!;
    const binding = jar.get("skillnet_sso")!;
    expect((await hop(jar, callback)).status).to.equal(303);
    await redis.set(key, record, "EX", 60);
    const thief = new CookieJar();
    thief.set("skillnet_sso", binding.value, binding.path);
    const replay = await hop(thief, callback);
    refusedWith(replay, "SIGN_IN_REJECTED", 400);
    expect(thief.get("skillnet_refresh")).to.equal(undefined);

    const jar2 = new CookieJar();
    const callback2 = await toCallback(jar2, world.baseUrl, await startPathOf(world, world.a), alice);
    const key2 = `${STATE_PREFIX}${callback2.searchParams.get("state")}`;
    const stored = JSON.parse((await redis.get(key2))!);
    await redis.set(key2, JSON.stringify({ ...stored, nonce: "a-nonce-the-provider-never-saw" }), "EX", 60);
    refusedWith(await hop(jar2, callback2), "SIGN_IN_REJECTED", 400);
    expect(jar2.get("skillnet_refresh")).to.equal(undefined);
  });

  it("refuses an unverified email and a domain the organisation does not allow", async () => {
    const unverified = await person("unverified", { noRow: true, extra: { email_verified: false } });
    refusedWith((await signIn(unverified)).landed, "EMAIL_NOT_VERIFIED");
    const outsider = await person("outsider", { domain: "elsewhere-corp.test", noRow: true });
    refusedWith((await signIn(outsider)).landed, "DOMAIN_NOT_ALLOWED");
  });

  it("creates a newcomer just in time only when allowed, from the claims, with roles from admin groups updated on every sign-in", async () => {
    const db = stack.server.deps.db;
    const newbie = await person("newbie", { noRow: true, extra: { department: "Logistics", groups: ["skillnet-admins"] } });
    refusedWith((await signIn(newbie)).landed, "NO_ACCOUNT");
    expect(await db("users").where({ email: newbie.email }).first()).to.equal(undefined);

    const on = await api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: world.a.adminToken, body: world.a.settings({ jit_enabled: true }) });
    expect(on.status).to.equal(200);
    const first = await signIn(newbie);
    expect(first.landed.status, first.landed.body).to.equal(303);
    const created = await db("users").where({ email: newbie.email }).first();
    expect(created).to.include({ org_id: world.a.orgId, provisioned_via: "jit", department: "Logistics", role: "admin", name: newbie.name });
    const audited = await db("audit_log").where({ org_id: world.a.orgId, action: "person.provisioned", target_id: created.id }).first();
    expect(audited).to.not.equal(undefined);

    // Two first sign-ins of one newcomer at once (two tabs): one person, one link, both signed in.
    const twin = await person("twin", { noRow: true });
    const starts = [new CookieJar(), new CookieJar()];
    const callbacks = await Promise.all(starts.map(async (jar) => toCallback(jar, world.baseUrl, await startPathOf(world, world.a), twin)));
    const landed = await Promise.all(callbacks.map((callback, i) => hop(starts[i]!, callback)));
    expect(landed.map((l) => l.status)).to.deep.equal([303, 303]);
    expect(await db("users").where({ email: twin.email })).to.have.length(1);
    expect(await db("identity_links").where({ subject: twin.sub })).to.have.length(1);

    await world.idp.addAccount({ ...newbie, groups: [], department: "Warehouse" });
    expect((await signIn(newbie)).landed.status).to.equal(303);
    expect(await db("users").where({ id: created.id }).first()).to.include({ role: "employee", department: "Warehouse" });
    await api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: world.a.adminToken, body: world.a.settings({ jit_enabled: false }) });
  });

  it("never signs a person of one organisation into another on the same issuer", async () => {
    // Carol belongs to A and has signed in there. B's provider (same issuer, its own client) cannot
    // list A's domain (a domain belongs to one organisation), and even with JIT on, signing in
    // through B's button finds Carol's link in A and refuses.
    const carol = await person("carol");
    expect((await signIn(carol, world.a)).landed.status).to.equal(303);
    const bAllowsA = world.b.settings({ allowed_domains: [world.b.domain, world.a.domain], jit_enabled: true });
    const claimed = await api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: world.b.adminToken, body: bAllowsA });
    expect(claimed.status).to.equal(409);
    expect(claimed.body.error.code).to.equal("DOMAIN_CLAIMED");
    expect(
      (await api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: world.b.adminToken, body: world.b.settings({ jit_enabled: true }) })).status,
    ).to.equal(200);
    const viaB = await signIn(carol, world.b);
    refusedWith(viaB.landed, "WRONG_ORGANISATION");
    expect(viaB.jar.get("skillnet_refresh")).to.equal(undefined);
    // Dan is A's too but never signed in: B's JIT does not take his email either.
    const dan = await person("dan");
    refusedWith((await signIn(dan, world.b)).landed, "DOMAIN_NOT_ALLOWED");
    expect((await stack.server.deps.db("users").where({ email: dan.email })).map((u: { org_id: string }) => u.org_id)).to.deep.equal([world.a.orgId]);
    await api(world.baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: world.b.adminToken, body: world.b.settings() });
  });

  it("rotates the refresh cookie on each use; a spent one presented again revokes the family; CSRF checks hold", async () => {
    const erin = await person("erin");
    const { jar } = await signIn(erin);
    expect((await refresh(world, jar, {})).status, "no X-Requested-With").to.equal(403);
    const evil = await refresh(world, jar, { "x-requested-with": "x", origin: "https://evil.example" });
    expect(JSON.parse(evil.body).error.code).to.equal("CSRF_CHECK_FAILED");
    const first = jar.get("skillnet_refresh")!.value;
    expect((await refresh(world, jar)).status).to.equal(200);
    const second = jar.get("skillnet_refresh")!.value;
    expect(second).to.not.equal(first);
    // Presented again past the concurrent-tabs grace window: a copy was taken.
    await stack.server.deps
      .db("refresh_tokens")
      .where({ token_hash: sha256(first) })
      .update({ used_at: stack.server.deps.db.raw("now() - interval '1 minute'") });
    const stolen = new CookieJar();
    stolen.set("skillnet_refresh", first, "/api/v1/auth");
    const reuse = await refresh(world, stolen);
    expect(reuse.status).to.equal(401);
    expect(JSON.parse(reuse.body).error.code).to.equal("REFRESH_TOKEN_INVALID");
    expect((await refresh(world, jar)).status, "the family is revoked, the newest cookie too").to.equal(401);
  });

  it("lets two tabs refresh with the same cookie at once without ending the session", async () => {
    const tabs = await person("tabs");
    const { jar } = await signIn(tabs);
    const cookie = jar.get("skillnet_refresh")!.value;
    const twoTabs = [new CookieJar(), new CookieJar()];
    for (const tab of twoTabs) tab.set("skillnet_refresh", cookie, "/api/v1/auth");
    const answers = await Promise.all(twoTabs.map((tab) => refresh(world, tab)));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
    expect((await refresh(world, twoTabs[1]!)).status, "the family lives on").to.equal(200);
  });

  it("shows the provider's own refusal (error=access_denied) and signs nobody in", async () => {
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), await person("cancel"));
    const denied = new URL(CALLBACK, world.baseUrl);
    denied.search = new URLSearchParams({ error: "access_denied", state: callback.searchParams.get("state")!, iss: world.idp.issuer }).toString();
    const landed = await hop(jar, denied);
    refusedWith(landed, "SIGN_IN_PROVIDER_REFUSED", 400);
    expect(jar.get("skillnet_refresh")).to.equal(undefined);
  });

  it("signs out: revokes the family, clears the cookie, and names the provider's end-session URL without a token", async () => {
    const fay = await person("fay");
    const { jar } = await signIn(fay);
    const out = await hop(jar, new URL("/api/v1/auth/sign-out", world.baseUrl), {
      method: "POST",
      headers: { "x-requested-with": "skillnet", "content-type": "application/json" },
      body: JSON.stringify({ return_to: "/" }),
    });
    expect(out.status, out.body).to.equal(200);
    const url = new URL(JSON.parse(out.body).end_session_url);
    expect(url.origin).to.equal(world.idp.issuer);
    expect(url.searchParams.get("client_id")).to.equal(world.a.clientId);
    expect(url.searchParams.get("post_logout_redirect_uri")).to.equal(`${world.baseUrl}/`);
    expect(url.searchParams.has("id_token_hint")).to.equal(false);
    expect(jar.get("skillnet_refresh")).to.equal(undefined);
    const live = await stack.server.deps
      .db("refresh_tokens")
      .join("users", "users.id", "refresh_tokens.user_id")
      .where({ "users.email": fay.email })
      .whereNull("revoked_at");
    expect(live).to.have.length(0);
  });

  it("refuses a deactivated person at refresh and at sign-in", async () => {
    const gus = await person("gus");
    const { jar } = await signIn(gus);
    await stack.server.deps.db("users").where({ id: gus.userId }).update({ is_active: false });
    const refused = await refresh(world, jar);
    expect(refused.status).to.equal(401);
    expect(refused.body).to.include("deactivated");
    refusedWith((await signIn(gus)).landed, "ACCOUNT_DEACTIVATED");
  });

  it("ends on a clear page within the timeout when the provider hangs at the code exchange", async () => {
    const hana = await person("hana");
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), hana);
    await world.idp.hang(20_000);
    try {
      const landed = await hop(jar, callback);
      refusedWith(landed, "IDP_UNAVAILABLE", 504);
      expect(landed.ms, "bounded by OIDC_HTTP_TIMEOUT_MS=1500").to.be.below(3_000);
      expect(jar.get("skillnet_refresh")).to.equal(undefined);
    } finally {
      await world.idp.hang(0);
    }
  });

  it("runs a test sign-in for the admin: reports the claims and the person, signs nobody in", async () => {
    const ivy = await person("ivy", { extra: { department: "Sales" } });
    const started = await api(world.baseUrl, "POST", "/api/v1/admin/identity-provider/test", { token: world.a.adminToken });
    expect(started.status).to.equal(201);
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, started.body.start_url, ivy);
    const report = await hop(jar, callback);
    expect(report.status).to.equal(200);
    expect(report.body).to.include("Test sign-in").and.include(ivy.email).and.include("Would sign in").and.include("Sales");
    expect(jar.get("skillnet_refresh")).to.equal(undefined);
    expect(await stack.server.deps.db("identity_links").where({ subject: ivy.sub }).first(), "a test links nobody").to.equal(undefined);
    // The ticket is single use.
    const again = await hop(new CookieJar(), new URL(started.body.start_url, world.baseUrl));
    refusedWith(again, "SIGN_IN_STATE_INVALID", 400);
  });

  // Last: it stops the provider.
  it("ends on a clear page when the provider is down (connection refused) at the code exchange", async () => {
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, world.a), await person("late"));
    await world.idp.stop();
    const landed = await hop(jar, callback);
    refusedWith(landed, "IDP_UNAVAILABLE", 504);
    expect(jar.get("skillnet_refresh")).to.equal(undefined);
  });
});
