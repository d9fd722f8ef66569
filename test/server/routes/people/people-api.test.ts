/**
 * The admin people API on the real stack, with two organisations: list, search, filter and page;
 * add a person; the refusals (duplicate email across organisations, self-demotion, the last admin
 * when two admins demote each other at once, another organisation's person); deactivation revokes
 * refresh tokens and stops the person's access token at once; every change is audited.
 */
import { expect } from "chai";
import { linkIdentity, touchIdentityLink } from "../../../../db/queries/identity-link-writes";
import { issueRefreshToken, spendRefreshToken } from "../../../../db/queries/refresh-tokens";
import { peopleResponse } from "../../../../server/routes/people/schema";
import { api, login } from "../../../harness/client";
import { dropOrganisations } from "../../../support/organizations";
import { storeIdentityProvider } from "../../../support/sso";
import { stackSuite } from "../../../support/suite";
import { cleanUp, freshUser, unique, type Person } from "../../../workers/admin/helpers";
import { freshOrganisation } from "../allowance/helpers";

describe("the admin people API (/api/v1/admin/people)", function () {
  const stack = stackSuite(this, { timeoutMs: 20_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let secondAdminA: Person;
  let adminB: Person;
  const tag = unique();
  const people = (query: string, token = adminA.token) => api(stack.baseUrl, "GET", `/api/v1/admin/people${query}`, { token });
  const patch = (id: string, body: unknown, token = adminA.token) => api(stack.baseUrl, "PATCH", `/api/v1/admin/people/${id}`, { token, body });
  const auditOf = (userId: string) =>
    db()("audit_log").where({ target_type: "user", target_id: userId }).orderBy("created_at").select("action", "actor_id", "before", "after", "org_id");

  before(async () => {
    orgA = await freshOrganisation(stack, "People A");
    orgB = await freshOrganisation(stack, "People B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA, name: `Ada Admin ${tag}` });
    secondAdminA = await freshUser(stack, { role: "admin", orgId: orgA, name: `Bea Admin ${tag}` });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB, name: `Bob Admin ${tag}` });
    const row = (name: string, provisioned_via: string, department: string, is_active = true) => ({
      org_id: orgA,
      email: `${name.toLowerCase().replace(/\W+/g, "-")}-${unique()}@example.com`,
      name,
      role: "employee",
      department,
      provisioned_via,
      is_active,
    });
    await db()("users").insert([
      row("Carla Núñez", "scim", "Sales"),
      row("Dario Scim", "scim", "Sales"),
      row("Elena Jit", "jit", "Warehouse"),
      row("Felix Gone", "seed", "Warehouse", false),
    ]);
    await db()("users").insert({ ...row("Zed Other Org", "api", "Sales"), org_id: orgB });
    // Elena signed in through the organisation's provider once.
    const elena = await db()("users").where({ org_id: orgA, name: "Elena Jit" }).first("id");
    const provider = await storeIdentityProvider(db(), orgA, {
      display_name: "Acme SSO",
      issuer: `https://idp-${tag}.example.com`,
      client_id: "console",
      api_audience: null,
      allowed_domains: ["example.com"],
      claim_mapping: {},
      jit_enabled: true,
      enabled: true,
    });
    const link = await linkIdentity(db(), { org_id: orgA, user_id: elena.id, provider_id: provider.id, issuer: provider.issuer!, subject: `sub-${tag}` });
    await touchIdentityLink(db(), link.id);
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("lists only the caller's organisation, by name, with how each person arrived and their last sign-in", async () => {
    const listing = await people("?limit=200");
    expect(listing.status).to.equal(200);
    expect(peopleResponse.safeParse(listing.body).success, "matches the documented schema").to.equal(true);
    const names = listing.body.people.map((p: { name: string }) => p.name);
    expect(names).to.deep.equal([`Ada Admin ${tag}`, `Bea Admin ${tag}`, "Carla Núñez", "Dario Scim", "Elena Jit", "Felix Gone"]);
    expect(listing.body.total).to.equal(6);
    expect(listing.body.next_offset).to.equal(null);
    const elena = listing.body.people.find((p: { name: string }) => p.name === "Elena Jit");
    expect(elena).to.include({ provisioned_via: "jit", has_identity_link: true, is_active: true, department: "Warehouse" });
    expect(Date.now() - Date.parse(elena.last_sign_in_at)).to.be.lessThan(60_000);
    const carla = listing.body.people.find((p: { name: string }) => p.name === "Carla Núñez");
    expect(carla).to.include({ provisioned_via: "scim", has_identity_link: false, last_sign_in_at: null });
    const other = await people("?limit=200", adminB.token);
    expect(other.body.people.map((p: { name: string }) => p.name)).to.deep.equal([`Bob Admin ${tag}`, "Zed Other Org"]);
  });

  it("searches names and emails without case or accents, filters, and pages without overlap", async () => {
    const search = await people("?search=NUNEZ");
    expect(search.body.people.map((p: { name: string }) => p.name)).to.deep.equal(["Carla Núñez"]);
    const byEmail = await people(`?search=${encodeURIComponent("dario-scim-")}`);
    expect(byEmail.body.people.map((p: { name: string }) => p.name)).to.deep.equal(["Dario Scim"]);
    const scim = await people("?provisioned_via=scim&department=sales");
    expect(scim.body.people.map((p: { name: string }) => p.name)).to.deep.equal(["Carla Núñez", "Dario Scim"]);
    const inactive = await people("?active=false");
    expect(inactive.body.people.map((p: { name: string }) => p.name)).to.deep.equal(["Felix Gone"]);
    const admins = await people("?role=admin&active=true");
    expect(admins.body.total).to.equal(2);
    const first = await people("?limit=4");
    expect(first.body).to.include({ total: 6, next_offset: 4 });
    const second = await people("?limit=4&offset=4");
    expect(second.body).to.include({ next_offset: null });
    const paged = [...first.body.people, ...second.body.people].map((p: { id: string }) => p.id);
    expect(new Set(paged).size).to.equal(6);
    const wildcard = await people(`?search=${encodeURIComponent("%")}`);
    expect(wildcard.body.total, "a LIKE wildcard is searched for literally").to.equal(0);
  });

  it("refuses bad filters and bodies with 400 and a code, and employees with 403", async () => {
    for (const query of ["?active=yes", "?provisioned_via=ldap", "?role=owner", "?limit=0", "?limit=201", "?offset=-1"]) {
      const refused = await people(query);
      expect(refused.status, query).to.equal(400);
      expect(refused.body.error.code, query).to.equal("VALIDATION_ERROR");
    }
    const bad = [
      { email: "not-an-email", name: "X" },
      { email: "ok@example.com", name: "  " },
      { email: "ok@example.com", name: "X", role: "root" },
      { email: "ok@example.com", name: "X", org_id: orgB },
    ];
    for (const body of bad) {
      const refused = await api(stack.baseUrl, "POST", "/api/v1/admin/people", { token: adminA.token, body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
    }
    const carla = await db()("users").where({ org_id: orgA, name: "Carla Núñez" }).first("id");
    expect((await patch(carla.id, {})).body.error.code).to.equal("VALIDATION_ERROR");
    expect((await patch(carla.id, { is_active: "False" })).status).to.equal(400);
    expect((await patch("not-a-uuid", { name: "X" })).status).to.equal(400);
    const employee = await freshUser(stack, { orgId: orgA, name: `Eve Employee ${tag}` });
    expect((await people("", employee.token)).status).to.equal(403);
  });

  it("adds a person (arrived via api, audited) and refuses an email someone has in another organisation without naming it", async () => {
    const email = `New.Person-${unique()}@Example.com`;
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/people", {
      token: adminA.token,
      body: { email, name: " Nina New ", department: "Sales", role: "employee", locale: "en" },
    });
    expect(created.status).to.equal(201);
    expect(created.body.person).to.include({
      email: email.toLowerCase(),
      name: "Nina New",
      provisioned_via: "api",
      role: "employee",
      locale: "en",
      is_active: true,
    });
    const audit = await auditOf(created.body.person.id);
    expect(audit).to.have.length(1);
    expect(audit[0]).to.deep.include({ action: "person.created", actor_id: adminA.id, org_id: orgA, before: null });
    expect(audit[0].after).to.include({ name: "Nina New", provisioned_via: "api" });

    const zed = await db()("users").where({ org_id: orgB, name: "Zed Other Org" }).first("email");
    const taken = await api(stack.baseUrl, "POST", "/api/v1/admin/people", { token: adminA.token, body: { email: zed.email.toUpperCase(), name: "Copycat" } });
    expect(taken.status).to.equal(409);
    // Another organisation's address: one answer for whatever keeps it there (review F15), naming nobody.
    expect(taken.body.error.code).to.equal("EMAIL_UNAVAILABLE");
    expect(JSON.stringify(taken.body)).not.to.include("People B").and.not.to.include(orgB);
    const again = await api(stack.baseUrl, "POST", "/api/v1/admin/people", { token: adminA.token, body: { email: created.body.person.email, name: "Twice" } });
    expect([again.status, again.body.error.code]).to.deep.equal([409, "EMAIL_TAKEN"]);
    expect(await db()("users").where({ name: "Copycat" }).first()).to.equal(undefined);
  });

  it("adds a person in any ISO 639-1 language (the tutor's fallback), refuses a language that is not a code, and lists them to their organisation only", async () => {
    const email = `francoise-${unique()}@example.com`;
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/people", { token: adminA.token, body: { email, name: "Françoise Fr", locale: "fr" } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.person).to.include({ locale: "fr" });
    expect(await db()("users").where({ id: created.body.person.id }).first("locale")).to.deep.equal({ locale: "fr" });

    for (const locale of ["French", "FR", "pt-BR", ""]) {
      const refused = await api(stack.baseUrl, "POST", "/api/v1/admin/people", {
        token: adminA.token,
        body: { email: `x-${unique()}@example.com`, name: "X", locale },
      });
      expect(refused.status, locale).to.equal(400);
      expect(refused.body.error.code, locale).to.equal("VALIDATION_ERROR");
      expect(refused.body.error.message, locale).to.include("ISO 639-1");
    }
    const seenByB = await people("?limit=200", adminB.token);
    expect(seenByB.body.people.map((p: { email: string }) => p.email)).to.not.include(email);
  });

  it("changes name, department and role; another organisation's person is 404 and unchanged", async () => {
    const dario = await db()("users").where({ org_id: orgA, name: "Dario Scim" }).first("id");
    const changed = await patch(dario.id, { name: "Dario Sales", department: "Retail", role: "admin" });
    expect(changed.status).to.equal(200);
    expect(changed.body.person).to.include({ name: "Dario Sales", department: "Retail", role: "admin" });
    const [audit] = await auditOf(dario.id);
    expect(audit).to.deep.include({ action: "person.updated", actor_id: adminA.id });
    expect(audit.before).to.deep.equal({ name: "Dario Scim", role: "employee", department: "Sales" });
    expect(audit.after).to.deep.equal({ name: "Dario Sales", role: "admin", department: "Retail" });
    const same = await patch(dario.id, { role: "admin" });
    expect(same.status).to.equal(200);
    expect(await auditOf(dario.id), "a change to what already is audits nothing").to.have.length(1);
    await patch(dario.id, { role: "employee" });

    const zed = await db()("users").where({ org_id: orgB, name: "Zed Other Org" }).first("id", "is_active");
    const foreign = await patch(zed.id, { is_active: false, name: "Hijacked" });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal("NOT_FOUND");
    expect(await db()("users").where({ id: zed.id }).first("name", "is_active")).to.deep.equal({ name: "Zed Other Org", is_active: true });
  });

  it("refuses an admin demoting or deactivating themselves", async () => {
    for (const body of [{ role: "employee" }, { is_active: false }]) {
      const refused = await patch(adminA.id, body);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal("SELF_DEMOTION");
    }
    expect(await db()("users").where({ id: adminA.id }).first("role", "is_active")).to.deep.equal({ role: "admin", is_active: true });
    expect((await patch(adminA.id, { department: "Management" })).status, "other changes to oneself are fine").to.equal(200);
  });

  it("deactivation revokes the person's refresh tokens, stops their access token at once, and reactivation lets them back", async () => {
    const email = `leaver-${unique()}@example.com`;
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/people", { token: adminA.token, body: { email, name: "Liam Leaver" } });
    const id: string = created.body.person.id;
    const { token } = await login(stack.baseUrl, email);
    expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token })).status).to.equal(200);
    const refresh = await issueRefreshToken(db(), { orgId: orgA, userId: id, providerId: null, ttlSeconds: 3600 });

    const deactivated = await patch(id, { is_active: false });
    expect(deactivated.status).to.equal(200);
    expect(deactivated.body.person.is_active).to.equal(false);
    expect(deactivated.body.person.deactivated_at).to.be.a("string");
    const stored = await db()("refresh_tokens").where({ user_id: id }).first("revoked_at");
    expect(stored.revoked_at, "the refresh token is revoked").to.be.instanceOf(Date);
    expect((await spendRefreshToken(db(), refresh.token)).kind).to.equal("revoked");
    const me = await api(stack.baseUrl, "GET", "/api/v1/me", { token });
    expect(me.status, "the access token stops working").to.equal(401);

    const back = await patch(id, { is_active: true });
    expect(back.body.person).to.include({ is_active: true, deactivated_at: null });
    expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token })).status).to.equal(200);
    expect((await auditOf(id)).map((row) => row.action)).to.deep.equal(["person.created", "person.deactivated", "person.reactivated"]);
    const [, deactivation] = await auditOf(id);
    expect(deactivation).to.deep.include({ before: { is_active: true }, after: { is_active: false }, actor_id: adminA.id });
  });

  it("never leaves the organisation without an active admin when two admins demote each other at once", async () => {
    // Hold the admins' rows so both requests pass sign-in and then wait on the same locks.
    const holder = await db().transaction();
    let outcomes: Array<{ status: number; body: { error?: { code: string } } }>;
    try {
      await holder.raw("SELECT id FROM users WHERE org_id = ? AND role = 'admin' FOR UPDATE", [orgA]);
      const racing = Promise.all([patch(secondAdminA.id, { role: "employee" }, adminA.token), patch(adminA.id, { role: "employee" }, secondAdminA.token)]);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await db().raw(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%for update%' AND query ILIKE '%users%'",
        );
        if (waiting.rows[0].n >= 2) break;
        if (Date.now() > deadline) throw new Error("the two requests never waited on the admins' rows");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder.commit();
      outcomes = await racing;
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    const statuses = outcomes.map((o) => o.status).sort();
    expect(statuses).to.deep.equal([200, 409]);
    expect(outcomes.find((o) => o.status === 409)!.body.error!.code).to.equal("LAST_ADMIN");
    const admins = await db()("users").where({ org_id: orgA, role: "admin", is_active: true }).count<{ n: string }[]>("* as n");
    expect(Number(admins[0]!.n)).to.equal(1);
  });
});
