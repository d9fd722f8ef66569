/**
 * The request sequence Okta documents for SCIM 2.0 provisioning (developer.okta.com, "SCIM 2.0
 * protocol reference"), replayed with its payload shapes against the real stack: look a user up
 * by userName, create them (with Okta's `password`, `groups: []` and `locale`), read them back,
 * update the profile with PUT, deactivate with a path-less replace, then push a group (create,
 * find by displayName, rename with Okta's `id` in the value, add and remove a member), and delete
 * it. Two organisations: the other one's token sees none of it.
 */
import { expect } from "chai";
import { stackSuite } from "../../../support/suite";
import { dropOrganisations } from "../../../support/organizations";
import { GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, auditActions, scim, scimOrganisation, type ScimOrg } from "./helpers";

describe("SCIM: Okta's provisioning sequence", function () {
  const stack = stackSuite(this, { resetModel: false });
  let okta: ScimOrg;
  let other: ScimOrg;

  before(async () => {
    [okta, other] = await Promise.all([scimOrganisation(stack, "okta"), scimOrganisation(stack, "other")]);
  });
  after(() => dropOrganisations(stack.server.deps.db, [okta?.orgId, other?.orgId]));

  it("creates, reads, updates and deactivates a user, then pushes a group and its membership", async () => {
    const call = (method: string, path: string, body?: unknown) => scim(stack.baseUrl, okta.scimToken, method, path, body);
    const email = `test.user@${okta.domain}`;
    const filter = `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`;

    const none = await call("GET", filter);
    expect(none.status).to.equal(200);
    expect(none.headers.get("content-type")).to.match(/^application\/scim\+json/);
    expect(none.body).to.deep.include({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1 });
    expect(none.body.Resources).to.deep.equal([]);

    const created = await call("POST", "/Users", {
      schemas: [USER_SCHEMA],
      userName: email.toUpperCase(),
      name: { givenName: "Test", familyName: "User" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Test User",
      locale: "en-US",
      externalId: "00ujl29u0le5T6Aj10h7",
      groups: [],
      password: "1mz050nq",
      active: true,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    expect(created.headers.get("location")).to.equal(`${stack.baseUrl}/scim/v2/Users/${id}`);
    expect(created.body).to.deep.include({ userName: email, active: true, externalId: "00ujl29u0le5T6Aj10h7", displayName: "Test User" });
    expect(created.body.password, "a password is never returned").to.equal(undefined);
    const stored = await stack.server.deps.db("users").where({ id }).first();
    expect(stored).to.include({ org_id: okta.orgId, email, name: "Test User", provisioned_via: "scim", role: "employee", locale: "en", is_active: true });

    const found = await call("GET", filter);
    expect(found.body.totalResults).to.equal(1);
    expect(found.body.Resources[0].id).to.equal(id);
    expect((await call("GET", `/Users/${id}`)).body.name).to.deep.include({ givenName: "Test", familyName: "User" });

    const put = await call("PUT", `/Users/${id}`, {
      schemas: [USER_SCHEMA],
      id,
      userName: email,
      name: { givenName: "Another", familyName: "User" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Another User",
      title: "Forklift operator",
      active: true,
      groups: [],
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body).to.deep.include({ title: "Forklift operator" });
    expect((await stack.server.deps.db("users").where({ id }).first()).name).to.equal("Another User");

    const deactivated = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] });
    expect(deactivated.status, JSON.stringify(deactivated.body)).to.equal(200);
    expect(deactivated.body.active).to.equal(false);
    expect((await stack.server.deps.db("users").where({ id }).first()).is_active).to.equal(false);
    expect(await auditActions(stack, okta.orgId, id)).to.deep.equal(["scim.user.created", "scim.user.updated", "scim.user.deactivated"]);

    // Groups: Okta's "Push groups".
    const group = await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Test SCIMv2", members: [] });
    expect(group.status, JSON.stringify(group.body)).to.equal(201);
    const groupId = group.body.id as string;
    const byName = await call("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`);
    expect(byName.body.totalResults).to.equal(1);
    expect(byName.body.Resources[0]).to.deep.include({ id: groupId, displayName: "Test SCIMv2" });

    const renamed = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { id: groupId, displayName: "Warehouse" } }],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).to.equal(204);
    const added = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "add", path: "members", value: [{ value: id, display: email }] }],
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(204);
    const withMember = await call("GET", `/Groups/${groupId}`);
    expect(withMember.body.displayName).to.equal("Warehouse");
    expect(withMember.body.members).to.deep.equal([{ value: id, display: "Another User" }]);
    const memberOf = await call("GET", `/Groups?filter=${encodeURIComponent(`members.value eq "${id}"`)}`);
    expect(memberOf.body.Resources.map((g: { id: string }) => g.id)).to.deep.equal([groupId]);

    const removed = await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${id}"]` }] });
    expect(removed.status, JSON.stringify(removed.body)).to.equal(204);
    expect((await call("GET", `/Groups/${groupId}`)).body.members).to.equal(undefined);
    // Okta's older integrations replace the whole group with PUT.
    const replaced = await call("PUT", `/Groups/${groupId}`, {
      schemas: [GROUP_SCHEMA],
      id: groupId,
      displayName: "Warehouse",
      members: [{ value: id, display: email }],
    });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(replaced.body.members).to.deep.equal([{ value: id, display: "Another User" }]);
    const emptied = await call("PUT", `/Groups/${groupId}`, { schemas: [GROUP_SCHEMA], displayName: "Warehouse", members: [] });
    expect(emptied.body.members).to.equal(undefined);

    // The other organisation's token sees none of it and changes none of it.
    const foreign = (method: string, path: string, body?: unknown) => scim(stack.baseUrl, other.scimToken, method, path, body);
    expect((await foreign("GET", filter)).body.totalResults).to.equal(0);
    expect((await foreign("GET", `/Users/${id}`)).status).to.equal(404);
    expect((await foreign("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: true } }] })).status).to.equal(404);
    expect((await foreign("PUT", `/Users/${id}`, { schemas: [USER_SCHEMA], userName: email })).status).to.equal(404);
    expect((await foreign("DELETE", `/Users/${id}`)).status).to.equal(404);
    expect((await foreign("GET", `/Groups/${groupId}`)).status).to.equal(404);
    expect((await foreign("DELETE", `/Groups/${groupId}`)).status).to.equal(404);
    const adopt = await foreign("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Mine", members: [{ value: id }] });
    expect(adopt.status, "another organisation's person is no member value").to.equal(400);
    expect(adopt.body.scimType).to.equal("invalidValue");
    const stolen = await foreign("POST", "/Users", { schemas: [USER_SCHEMA], userName: email, active: true });
    expect(stolen.status).to.equal(409);
    expect(stolen.body).to.deep.include({ scimType: "uniqueness" });
    expect(stolen.body.detail).to.not.include(okta.orgId);
    expect((await stack.server.deps.db("users").where({ id }).first()).is_active, "nothing changed").to.equal(false);

    expect((await call("DELETE", `/Groups/${groupId}`)).status).to.equal(204);
    expect((await call("GET", `/Groups/${groupId}`)).status).to.equal(404);
    expect(await auditActions(stack, okta.orgId, groupId)).to.deep.equal([
      "scim.group.created",
      "scim.group.updated",
      "scim.group.updated",
      "scim.group.updated",
      "scim.group.updated",
      "scim.group.updated",
      "scim.group.deleted",
    ]);
  });
});
