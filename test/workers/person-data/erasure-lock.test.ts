/**
 * An erasure locks the person out from its request, not from its last step (issue 44, point 4;
 * review F6). While it is queued (the `person-data` worker paused), and after it failed, nothing
 * brings the person back: the People API (`409 PERSON_ERASED` for `is_active`, role or name), SCIM
 * (the person is gone: `404` for GET/PATCH/PUT/DELETE, `409 uniqueness` for a POST of their
 * userName, even for one SCIM had deleted before), the database itself (a CHECK); so single
 * sign-on (link or email), refresh, dev-login and their sockets (cut at once) stay refused. A row
 * written between the request and the lock (a turn in flight) is swept by the final step.
 * The other organisation, on the same issuer, keeps reactivating and signing in its own people.
 */
import { expect } from "chai";
import type { Db } from "../../../db/knex";
import { failPersonErasure, findPersonErasure } from "../../../db/queries/person-erasure";
import { api, connect, login, waitFor } from "../../harness/client";
import { stackWorker } from "../../reliability/helpers";
import { PATCH_OP, USER_SCHEMA, scim } from "../../server/routes/scim/helpers";
import { CookieJar, hop, refresh, type SsoOrg, type SsoWorld, startPathOf, startSsoWorld, toCallback, unique } from "../../support/sso";
import { stackSuite } from "../../support/suite";

describe("person-data: an erasure locks the person out from its request", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000, resetModel: false });
  const db = (): Db => stack.server.deps.db;
  let world: SsoWorld;
  const scimTokens = new Map<string, string>();

  /** A person at the provider and in SCIM (created by a SCIM POST, as Entra provisions them). */
  async function provisioned(org: SsoOrg, name: string) {
    const email = `${name}-${unique()}@${org.domain}`;
    await world.idp.addAccount({ sub: `${name}-${unique()}`, email, password: world.password, name: `${name} Person` });
    const created = await scim(world.baseUrl, scimTokens.get(org.orgId), "POST", "/Users", {
      schemas: [USER_SCHEMA],
      userName: email,
      active: true,
      name: { givenName: name, familyName: "Person" },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { id: created.body.id as string, email, password: world.password };
  }

  async function signIn(who: { email: string; password: string }, org: SsoOrg) {
    const jar = new CookieJar();
    const callback = await toCallback(jar, world.baseUrl, await startPathOf(world, org), who);
    return { jar, landed: await hop(jar, callback) };
  }

  const scimAs = (org: SsoOrg, method: string, path: string, body?: unknown) => scim(world.baseUrl, scimTokens.get(org.orgId), method, path, body);
  const patchPerson = (org: SsoOrg, id: string, body: unknown) => api(world.baseUrl, "PATCH", `/api/v1/admin/people/${id}`, { token: org.adminToken, body });
  const activate = { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "True" }] };

  before(async function () {
    this.timeout(60_000);
    world = await startSsoWorld(stack);
    for (const org of [world.a, world.b]) {
      const issued = await api(world.baseUrl, "POST", "/api/v1/admin/scim/token", { token: org.adminToken });
      expect(issued.status).to.equal(201);
      scimTokens.set(org.orgId, issued.body.token);
    }
  });
  after(() => world?.stop());

  it("refuses every way back while the erasure is queued and after it failed; the other organisation is untouched", async () => {
    const ana = await provisioned(world.a, "ana");
    const namesake = await provisioned(world.b, "ana");
    const gone = await provisioned(world.a, "gone");
    expect((await scimAs(world.a, "DELETE", `/Users/${gone.id}`)).status, "SCIM deleted this one before").to.equal(204);
    const signedIn = await signIn(ana, world.a);
    expect(signedIn.landed.status).to.equal(303);
    const { token } = await login(stack.baseUrl, ana.email);
    const socket = await connect(stack.baseUrl, token);
    const cut: unknown[] = [];
    socket.on("auth_expired", (reason) => cut.push(reason));

    const worker = stackWorker(stack, "person-data");
    await worker.pause();
    let erasureId = "";
    try {
      for (const who of [ana, gone]) {
        const asked = await api(world.baseUrl, "POST", `/api/v1/admin/people/${who.id}/erasure`, { token: world.a.adminToken, body: { confirm: who.email } });
        expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
        if (who === ana) erasureId = asked.body.erasure.id;
      }
      // Their socket is cut now, not at the gateway's next re-check (a minute on this stack).
      await waitFor(async () => socket.disconnected, 5_000, "the socket cut");
      expect(cut).to.deep.equal([{ code: "ACCOUNT_INACTIVE", message: "This account has been deactivated or deleted" }]);

      const refusedEverywhere = async (when: string) => {
        for (const body of [{ is_active: true }, { role: "admin" }, { name: "Ana Again" }]) {
          const changed = await patchPerson(world.a, ana.id, body);
          expect(changed.status, `${when}: PATCH ${JSON.stringify(body)}`).to.equal(409);
          expect(changed.body.error.code).to.equal("PERSON_ERASED");
        }
        for (const [method, body] of [
          ["GET", undefined],
          ["PATCH", activate],
          ["PUT", { schemas: [USER_SCHEMA], userName: ana.email, active: true }],
          ["DELETE", undefined],
        ] as const)
          expect((await scimAs(world.a, method, `/Users/${ana.id}`, body)).status, `${when}: SCIM ${method}`).to.equal(404);
        const listed = await scimAs(world.a, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${ana.email}"`)}`);
        expect(listed.body.totalResults, `${when}: SCIM list`).to.equal(0);
        for (const who of [ana, gone]) {
          const again = await scimAs(world.a, "POST", "/Users", { schemas: [USER_SCHEMA], userName: who.email, active: true });
          expect(again.status, `${when}: SCIM POST`).to.equal(409);
          expect(again.body.scimType).to.equal("uniqueness");
        }
        const exported = await api(world.baseUrl, "POST", `/api/v1/admin/people/${ana.id}/export`, { token: world.a.adminToken });
        expect(exported.body.error?.code, `${when}: export`).to.equal("PERSON_ERASED");
        // Whatever path a later change adds, the database keeps them inactive.
        const forced = await db()("users")
          .where({ id: ana.id })
          .update({ is_active: true })
          .then(
            () => "updated",
            (error: { code?: string }) => error.code,
          );
        expect(forced, `${when}: the CHECK`).to.equal("23514");
        expect((await db()("users").where({ id: ana.id }).first()).is_active).to.equal(false);
        expect((await db()("users").where({ id: gone.id }).first()).is_active).to.equal(false);
        // So every sign-in stays refused.
        const sso = await signIn(ana, world.a);
        expect(sso.landed.body, `${when}: SSO by link`).to.include('<code id="code">ACCOUNT_DEACTIVATED</code>');
        const byEmail = await signIn(gone, world.a);
        expect(byEmail.landed.body, `${when}: SSO by email`).to.include('<code id="code">ACCOUNT_DEACTIVATED</code>');
        expect(await db()("identity_links").where({ user_id: gone.id }), `${when}: no new link`).to.have.length(0);
        expect((await refresh(world, signedIn.jar)).status, `${when}: refresh`).to.equal(401);
        expect((await api(stack.baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email: ana.email } })).status, `${when}: dev-login`).to.equal(401);
        expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token })).status, `${when}: their token`).to.equal(401);
      };
      await refusedEverywhere("queued");
      await failPersonErasure(db(), erasureId, { code: "QUEUE_UNAVAILABLE", message: "the job could not be queued; ask again to retry" });
      await refusedEverywhere("failed");

      // The other organisation, on the same provider: its admin cannot reach ours, and its own namesake comes and goes as before.
      expect((await patchPerson(world.b, ana.id, { is_active: true })).status).to.equal(404);
      expect((await scimAs(world.b, "PATCH", `/Users/${ana.id}`, activate)).status).to.equal(404);
      expect((await patchPerson(world.b, namesake.id, { is_active: false })).status).to.equal(200);
      expect((await scimAs(world.b, "PATCH", `/Users/${namesake.id}`, activate)).body.active).to.equal(true);
      expect((await signIn(namesake, world.b)).landed.status).to.equal(303);

      // Asked again while the worker is still paused: once it resumes, the first job queued would otherwise finish the
      // erasure before the request arrives (a whole run met that: PERSON_ERASED instead of the same erasure).
      const again = await api(world.baseUrl, "POST", `/api/v1/admin/people/${ana.id}/erasure`, { token: world.a.adminToken, body: { confirm: ana.email } });
      expect(again.body.erasure?.id, JSON.stringify(again.body)).to.equal(erasureId);
    } finally {
      worker.resume();
      socket.disconnect();
    }
    // The failed erasure, asked again, runs to the end: the placeholder is hidden from SCIM for good.
    await waitFor(async () => (await findPersonErasure(db(), world.a.orgId, erasureId))?.status === "completed", 30_000, "the erasure");
    expect((await scimAs(world.a, "GET", `/Users/${ana.id}`)).status).to.equal(404);
    expect(await db()("identity_links").where({ user_id: ana.id })).to.have.length(0);
  });

  it("sweeps what was written between the request and the lock (a turn already in flight)", async () => {
    const bea = await provisioned(world.a, "bea");
    const worker = stackWorker(stack, "person-data");
    await worker.pause();
    let erasureId = "";
    try {
      const asked = await api(world.baseUrl, "POST", `/api/v1/admin/people/${bea.id}/erasure`, { token: world.a.adminToken, body: { confirm: bea.email } });
      expect(asked.status).to.equal(202);
      erasureId = asked.body.erasure.id;
      // As if the first steps had run, and then an answer already being generated stored its turn.
      await db()("person_erasures").where({ id: erasureId }).update({ status: "running", step: "leftovers" });
      const [session] = await db()("chat_sessions").insert({ org_id: world.a.orgId, user_id: bea.id, agent_type: "tutor", title: "Late" }).returning("id");
      await db()("chat_messages").insert([
        { org_id: world.a.orgId, session_id: session.id, turn_id: session.id, role: "user", content: "written during the erasure" },
        { org_id: world.a.orgId, session_id: session.id, turn_id: session.id, role: "assistant", content: "an answer in flight" },
      ]);
    } finally {
      worker.resume();
    }
    const done = await waitFor(
      async () => {
        const record = await findPersonErasure(db(), world.a.orgId, erasureId);
        return record?.status === "completed" ? record : undefined;
      },
      30_000,
      "the erasure",
    );
    expect(done.counts).to.include({ "rows.chat_sessions": 1, "rows.chat_messages": 2 });
    expect(await db()("chat_sessions").where({ user_id: bea.id })).to.have.length(0);
    expect(await db()("chat_messages").where({ org_id: world.a.orgId }).where("content", "like", "%during the erasure%")).to.have.length(0);
  });
});
