/**
 * Integration keys on the real stack, with two organisations: an admin creates one (shown once,
 * never listed), lists and revokes them; a key reads its own organisation's people and usage only,
 * needs the endpoint's scope, stops working when revoked or expired, and is refused everywhere else.
 */
import { expect } from "chai";
import { createIntegrationKeyBody } from "../../../server/routes/integration-keys/schema";
import { api } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";

describe("integration keys (/api/v1/admin/integration-keys, /api/v1/integrations)", function () {
  const stack = stackSuite(this, { timeoutMs: 20_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  let employeeA: Person;
  const create = (body: unknown, token = adminA.token) => api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token, body });
  const people = (key: string, query = "") => api(stack.baseUrl, "GET", `/api/v1/integrations/people${query}`, { token: key });
  const newKey = async (scopes: string[], token = adminA.token): Promise<{ key: string; id: string }> => {
    const created = await create({ name: `Sync ${scopes.join("+")}`, scopes }, token);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { key: created.body.key, id: created.body.integration_key.id };
  };

  before(async () => {
    orgA = await freshOrganisation(stack, "Keys A");
    orgB = await freshOrganisation(stack, "Keys B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    employeeA = await freshUser(stack, { role: "employee", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    await db()("users").insert({ org_id: orgA, email: `ext-${orgA}@example.com`, name: "Ana External", role: "employee", external_id: "hr-42" });
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("creates a key shown once; the list never carries the key or its hash", async () => {
    const created = await create({ name: "  HR sync  ", scopes: ["people:read", "usage:read"], expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(created.status).to.equal(201);
    expect(created.body.key).to.match(/^skn_/);
    const listed = created.body.integration_key;
    expect(listed).to.include({ name: "HR sync", hint: created.body.key.slice(-4), created_by: adminA.id, revoked_at: null, last_used_at: null });
    expect(listed.scopes).to.deep.equal(["people:read", "usage:read"]);
    const list = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminA.token });
    expect(list.status).to.equal(200);
    expect(list.body.integration_keys.map((k: { id: string }) => k.id)).to.include(listed.id);
    const text = JSON.stringify(list.body);
    expect(text).not.to.include(created.body.key);
    expect(text).not.to.include("key_hash");
    const audit = await db()("audit_log").where({ target_type: "integration_key", target_id: listed.id }).select("action", "org_id");
    expect(audit).to.deep.equal([{ action: "integration_key.created", org_id: orgA }]);
  });

  it("is for admins only: an employee gets 403", async () => {
    expect((await create({ name: "Mine", scopes: ["people:read"] }, employeeA.token)).status).to.equal(403);
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: employeeA.token })).status).to.equal(403);
  });

  it("refuses a bad body with 400 VALIDATION_ERROR", async () => {
    const bodies = [
      { name: "x", scopes: [] },
      { name: "x", scopes: ["people:write"] },
      { name: "x", scopes: ["people:read", "people:read"] },
      { name: "x", scopes: ["people:read"], expires_at: new Date(Date.now() - 60_000).toISOString() },
      { name: "x", scopes: ["people:read"], expires_at: "2999-01-01T00:00:00" },
      { name: "x", scopes: ["people:read"], admin: true },
      { name: "   ", scopes: ["people:read"] },
    ];
    for (const body of bodies) {
      expect(createIntegrationKeyBody.safeParse(body).success, JSON.stringify(body)).to.equal(false);
      const answer = await create(body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error.code).to.equal("VALIDATION_ERROR");
    }
  });

  it("reads its own organisation's people only, paged, and records its use", async () => {
    const a = await newKey(["people:read"]);
    const b = await newKey(["people:read"], adminB.token);
    const pageA = await people(a.key, "?limit=500");
    expect(pageA.status, JSON.stringify(pageA.body)).to.equal(200);
    const emailsA = pageA.body.people.map((p: { email: string }) => p.email);
    expect(emailsA).to.have.members([adminA.email, employeeA.email, `ext-${orgA}@example.com`]);
    expect(pageA.body.total).to.equal(3);
    const ana = pageA.body.people.find((p: { name: string }) => p.name === "Ana External");
    expect(ana).to.deep.include({ external_id: "hr-42", role: "employee", is_active: true, department: null, job_title: null });
    expect(Object.keys(ana).sort()).to.deep.equal(["department", "email", "external_id", "id", "is_active", "job_title", "name", "role"]);
    const first = await people(a.key, "?limit=2");
    expect(first.body).to.include({ limit: 2, offset: 0, next_offset: 2, total: 3 });
    expect((await people(a.key, "?limit=501")).status).to.equal(400);
    const pageB = await people(b.key);
    expect(pageB.body.people.map((p: { email: string }) => p.email)).to.deep.equal([adminB.email]);
    const list = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminA.token });
    const used = list.body.integration_keys.find((k: { id: string }) => k.id === a.id);
    expect(used.last_used_at).to.be.a("string");
  });

  it("reads its organisation's usage with usage:read", async () => {
    const { key } = await newKey(["usage:read"]);
    const usage = await api(stack.baseUrl, "GET", "/api/v1/integrations/usage", { token: key });
    expect(usage.status, JSON.stringify(usage.body)).to.equal(200);
    expect(usage.body.totals.calls).to.equal(0);
    expect(usage.body.by_day.length).to.be.greaterThan(27);
  });

  it("needs the endpoint's scope: 403 INTEGRATION_SCOPE_MISSING", async () => {
    const { key } = await newKey(["usage:read"]);
    const answer = await people(key);
    expect(answer.status).to.equal(403);
    expect(answer.body.error.code).to.equal("INTEGRATION_SCOPE_MISSING");
  });

  it("refuses a revoked key, an expired key and a garbage bearer with 401 INTEGRATION_KEY_INVALID", async () => {
    const revoked = await newKey(["people:read"]);
    expect((await people(revoked.key)).status).to.equal(200);
    const revoking = await api(stack.baseUrl, "DELETE", `/api/v1/admin/integration-keys/${revoked.id}`, { token: adminA.token });
    expect(revoking.status).to.equal(200);
    expect(revoking.body.revoked_at).to.be.a("string");
    const expired = await newKey(["people:read"]);
    await db()("integration_keys")
      .where({ id: expired.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    for (const key of [revoked.key, expired.key, "skn_not-a-key", "garbage", adminA.token]) {
      const answer = await people(key);
      expect(answer.status, key).to.equal(401);
      expect(answer.body.error.code).to.equal("INTEGRATION_KEY_INVALID");
    }
    const none = await api(stack.baseUrl, "GET", "/api/v1/integrations/people");
    expect(none.status).to.equal(401);
  });

  it("is refused on the chat and the admin assistant routes", async () => {
    const { key } = await newKey(["people:read", "usage:read"]);
    const chat = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: key, body: { message: "hello" } });
    expect(chat.status).to.equal(401);
    expect((await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: key })).status).to.equal(401);
    const assistant = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: key, body: { message: "list people" } });
    expect(assistant.status).to.equal(401);
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: key })).status).to.equal(401);
  });

  it("answers 404 for another organisation's key id and 400 for a malformed one", async () => {
    const b = await newKey(["people:read"], adminB.token);
    const answer = await api(stack.baseUrl, "DELETE", `/api/v1/admin/integration-keys/${b.id}`, { token: adminA.token });
    expect(answer.status).to.equal(404);
    expect(answer.body.error.code).to.equal("NOT_FOUND");
    expect((await people(b.key)).status).to.equal(200);
    const unknown = await api(stack.baseUrl, "DELETE", "/api/v1/admin/integration-keys/00000000-0000-4000-8000-000000000000", { token: adminA.token });
    expect(unknown.status).to.equal(404);
    const malformed = await api(stack.baseUrl, "DELETE", "/api/v1/admin/integration-keys/nope", { token: adminA.token });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal("VALIDATION_ERROR");
  });
});
