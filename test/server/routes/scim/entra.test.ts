/**
 * The requests Microsoft Entra ID's provisioning service sends (learn.microsoft.com, "Tutorial:
 * Develop and plan provisioning for a SCIM endpoint"), with its payload shapes: look up by
 * userName, create with the enterprise extension, PATCH with capitalised ops and value filters,
 * `"value": "False"` for active, a path-less replace with dotted keys, groups with Microsoft's own
 * schema URN, `excludedAttributes=members`, members added and removed with `$ref: null` values,
 * DELETE. Plus what the organisation's group mapping does to members, and that a socket of a
 * person SCIM deactivates is cut at the next re-check and their refresh tokens are revoked.
 */
import { expect } from "chai";
import { parseConfig } from "../../../../lib/config";
import { issueRefreshToken } from "../../../../db/queries/refresh-tokens";
import { startServer, type RunningServer } from "../../../../server/server";
import { api, connect } from "../../../harness/client";
import { dropOrganisations } from "../../../support/organizations";
import { stackSuite } from "../../../support/suite";
import { ENTERPRISE, GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, auditActions, scim, scimOrganisation, type ScimOrg } from "./helpers";
import { testEnv } from "../../../support/tunables";

const MS_GROUP = "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group";

describe("SCIM: Entra ID's provisioning requests", function () {
  const stack = stackSuite(this, { resetModel: false });
  let entra: ScimOrg;
  let other: ScimOrg;
  let fastServer: RunningServer | undefined;

  before(async () => {
    [entra, other] = await Promise.all([scimOrganisation(stack, "entra"), scimOrganisation(stack, "entra-other")]);
  });
  after(async () => {
    await Promise.race([fastServer?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await dropOrganisations(stack.server.deps.db, [entra?.orgId, other?.orgId]);
  });

  const call = (method: string, path: string, body?: unknown, baseUrl = stack.baseUrl) => scim(baseUrl, entra.scimToken, method, path, body);
  const userOf = (id: string) => stack.server.deps.db("users").where({ id }).first();

  async function createUser(local: string, externalId: string) {
    const userName = `${local}@${entra.domain}`;
    const lookup = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(lookup.body.totalResults).to.equal(0);
    const created = await call("POST", "/Users", {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId,
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: userName }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: [],
      [ENTERPRISE]: { department: "Logistics" },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { id: created.body.id as string, userName };
  }

  it("creates, patches, deactivates with a string boolean and deletes a user", async () => {
    const { id, userName } = await createUser("Test_User_ab6490ee", "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef");
    expect(await userOf(id)).to.include({ email: userName.toLowerCase(), name: "givenName familyName", department: "Logistics", provisioned_via: "scim" });
    const byExternal = await call("GET", `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
    expect(byExternal.body.Resources.map((u: { id: string }) => u.id)).to.deep.equal([id]);

    const updated = await call("PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "ignored@elsewhere.example" },
        { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
        { op: "Add", path: `${ENTERPRISE}:department`, value: "Sales" },
        { op: "Replace", path: "title", value: "Dispatcher" },
      ],
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(await userOf(id)).to.include({
      name: "givenName updatedFamilyName",
      family_name: "updatedFamilyName",
      department: "Sales",
      job_title: "Dispatcher",
    });
    expect(updated.body.userName, "userName stays the person's email").to.equal(userName.toLowerCase());

    const pathless = await call("PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", value: { "name.givenName": "Ana", "name.familyName": "Ruiz", externalId: "ext-2" } }],
    });
    expect(pathless.status, JSON.stringify(pathless.body)).to.equal(200);
    expect(await userOf(id)).to.include({ name: "Ana Ruiz", external_id: "ext-2" });

    const off = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.status, JSON.stringify(off.body)).to.equal(200);
    expect(off.body.active).to.equal(false);
    expect((await userOf(id)).is_active).to.equal(false);
    const on = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "True" }] });
    expect(on.body.active).to.equal(true);

    expect((await call("DELETE", `/Users/${id}`)).status).to.equal(204);
    expect((await call("GET", `/Users/${id}`)).status).to.equal(404);
    expect((await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.totalResults).to.equal(0);
    expect((await call("DELETE", `/Users/${id}`)).status, "deleting twice").to.equal(404);
    expect(await userOf(id), "the row stays (chats are kept)").to.include({ is_active: false, org_id: entra.orgId });
    expect(await auditActions(stack, entra.orgId, id)).to.deep.equal([
      "scim.user.created",
      "scim.user.updated",
      "scim.user.updated",
      "scim.user.deactivated",
      "scim.user.reactivated",
      "scim.user.deleted",
    ]);
    const audit = await stack.server.deps.db("audit_log").where({ target_id: id, action: "scim.user.deleted" }).first();
    expect(audit.actor_id).to.equal(null);
    expect(audit.details.actor).to.include({ type: "scim_token", hint: entra.scimToken.slice(-4) });

    // Provisioned again, the same person comes back (same id, chats intact).
    const again = await call("POST", "/Users", { schemas: [USER_SCHEMA], userName, active: true, name: { formatted: "Ana Ruiz" } });
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(again.body.id).to.equal(id);
    expect((await userOf(id)).is_active).to.equal(true);
  });

  it("maps groups to departments and the admin role, and applies membership changes", async () => {
    const ana = await createUser("ana", "ext-ana");
    const ben = await createUser("ben", "ext-ben");
    const created = await call("POST", "/Groups", {
      schemas: [GROUP_SCHEMA, MS_GROUP],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Warehouse Team",
      meta: { resourceType: "Group" },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const groupId = created.body.id as string;
    const admins = await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Learning Admins", externalId: "adm" });
    const adminGroupId = admins.body.id as string;

    const found = await call("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "warehouse team"')}`);
    expect(found.body.totalResults).to.equal(1);
    expect(found.body.Resources[0]).to.include({ id: groupId, displayName: "Warehouse Team" });

    // The admin maps the groups in the console.
    const map = (id: string, mapping: string | null) =>
      api(stack.baseUrl, "PUT", `/api/v1/admin/scim/groups/${id}/mapping`, { token: entra.adminToken, body: { mapping } });
    expect((await map(groupId, "department")).status).to.equal(200);
    const mapped = await map(adminGroupId, "admin");
    expect(mapped.body, JSON.stringify(mapped.body)).to.include({ mapping: "admin", member_count: 0 });
    expect(
      (await api(stack.baseUrl, "PUT", `/api/v1/admin/scim/groups/${groupId}/mapping`, { token: other.adminToken, body: { mapping: null } })).status,
      "another org's admin",
    ).to.equal(404);

    const add = (gid: string, ...ids: string[]) =>
      call("PATCH", `/Groups/${gid}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: "Add", path: "members", value: ids.map((value) => ({ $ref: null, value })) }],
      });
    expect((await add(groupId, ana.id, ben.id)).status).to.equal(204);
    expect((await add(adminGroupId, ana.id)).status).to.equal(204);
    expect(await userOf(ana.id)).to.include({ department: "Warehouse Team", role: "admin" });
    expect(await userOf(ben.id)).to.include({ department: "Warehouse Team", role: "employee" });

    const one = await call("GET", `/Groups/${groupId}?excludedAttributes=members`);
    expect(one.body.members).to.equal(undefined);
    expect((await call("GET", `/Groups/${groupId}`)).body.members.map((m: { value: string }) => m.value).sort()).to.deep.equal([ana.id, ben.id].sort());

    const renamed = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", path: "displayName", value: "Warehouse North" }],
    });
    expect(renamed.status).to.equal(204);
    expect((await userOf(ben.id)).department, "a renamed department group renames its members' department").to.equal("Warehouse North");

    const remove = await call("PATCH", `/Groups/${adminGroupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: ana.id }] }],
    });
    expect(remove.status).to.equal(204);
    expect((await userOf(ana.id)).role, "leaving the last admin group").to.equal("employee");
    expect(
      (await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${ben.id}"]` }] })).status,
    ).to.equal(204);
    expect((await userOf(ben.id)).department).to.equal(null);

    const settings = await api(stack.baseUrl, "GET", "/api/v1/admin/scim", { token: entra.adminToken });
    expect(settings.status).to.equal(200);
    expect(settings.body.base_url).to.equal(`${stack.baseUrl}/scim/v2`);
    expect(settings.body.token.hint).to.equal(entra.scimToken.slice(-4));
    expect(settings.body.token.last_used_at).to.be.a("string");
    expect(
      settings.body.groups.map((g: { display_name: string; mapping: string | null; member_count: number }) => [g.display_name, g.mapping, g.member_count]),
    ).to.deep.equal([
      ["Learning Admins", "admin", 0],
      ["Warehouse North", "department", 1],
    ]);
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/scim", { token: other.adminToken })).body.groups, "the other org's admin").to.deep.equal([]);

    expect((await call("DELETE", `/Groups/${groupId}`)).status).to.equal(204);
    expect((await userOf(ana.id)).department, "deleting a department group clears its members' department").to.equal(null);
    const mappingAudit = await stack.server.deps
      .db("audit_log")
      .where({ org_id: entra.orgId, target_id: adminGroupId, action: "scim.group.mapping_changed" })
      .first();
    expect(mappingAudit).to.include({ actor_id: entra.adminId });
    expect(mappingAudit.after).to.deep.equal({ mapping: "admin" });
  });

  it("keeps every member when members are added to one group by parallel requests", async () => {
    const people = await Promise.all([1, 2, 3, 4, 5].map((n) => createUser(`parallel${n}`, `ext-parallel-${n}`)));
    const group = await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Parallel" });
    const answers = await Promise.all(
      people.map((person) =>
        call("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: person.id }] }] }),
      ),
    );
    expect(answers.map((answer) => answer.status)).to.deep.equal([204, 204, 204, 204, 204]);
    const members = (await call("GET", `/Groups/${group.body.id}`)).body.members.map((m: { value: string }) => m.value);
    expect(members.sort()).to.deep.equal(people.map((p) => p.id).sort());
  });

  it("cuts a SCIM-deactivated person's socket at the next re-check and revokes their refresh tokens", async () => {
    fastServer = await startServer(parseConfig(testEnv({ ...process.env, SOCKET_REAUTH_INTERVAL_MS: "200" })), { port: 0, host: "127.0.0.1" });
    const { id } = await createUser("leaver", "ext-leaver");
    await issueRefreshToken(stack.server.deps.db, { orgId: entra.orgId, userId: id, providerId: null, ttlSeconds: 3600 });
    const socket = await connect(fastServer.url, await stack.server.deps.tokens.sign({ userId: id, orgId: entra.orgId, role: "employee" }));
    try {
      const cut = new Promise<{ code?: string }>((resolve) => socket.once("auth_expired", resolve));
      const gone = new Promise<string>((resolve) => socket.once("disconnect", resolve));
      const started = Date.now();
      const off = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }, fastServer.url);
      expect(off.status).to.equal(200);
      expect((await cut).code).to.equal("ACCOUNT_INACTIVE");
      expect(await gone).to.equal("io server disconnect");
      expect(Date.now() - started).to.be.lessThan(5_000);
      const live = await stack.server.deps.db("refresh_tokens").where({ user_id: id }).whereNull("revoked_at").count<{ count: string }[]>("* as count");
      expect(Number(live[0]!.count)).to.equal(0);
    } finally {
      socket.disconnect();
    }
  });

  it("cuts a SCIM-deactivated and a SCIM-deleted person's sockets at once, long before the minute's re-check", async () => {
    for (const [name, change] of [
      ["quitter", (id: string) => call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })],
      ["removed", (id: string) => call("DELETE", `/Users/${id}`)],
    ] as const) {
      const { id } = await createUser(name, `ext-${name}`);
      const socket = await connect(stack.baseUrl, await stack.server.deps.tokens.sign({ userId: id, orgId: entra.orgId, role: "employee" }));
      try {
        const cut = new Promise<{ code?: string }>((resolve) => socket.once("auth_expired", resolve));
        const gone = new Promise<number>((resolve) => socket.once("disconnect", () => resolve(Date.now())));
        const answer = await change(id);
        expect(answer.status, name).to.be.oneOf([200, 204]);
        const answeredAt = Date.now();
        expect((await cut).code, name).to.equal("ACCOUNT_INACTIVE");
        expect((await gone) - answeredAt, `${name}: cut within a second`).to.be.below(1_000);
      } finally {
        socket.disconnect();
      }
    }
  });
});
