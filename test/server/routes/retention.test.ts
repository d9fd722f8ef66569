/**
 * An organisation's chat retention (GET/PUT /api/v1/admin/retention) on the real stack, with two
 * organisations: an admin reads and sets their own organisation's (audited as
 * `retention.updated`, before and after), never another's; out-of-range or non-numeric days are
 * a 400 VALIDATION_ERROR that changes nothing; employees get 403.
 */
import { expect } from "chai";
import { retentionResponse } from "../../../server/routes/retention/schema";
import { api } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";

describe("chat retention setting (/api/v1/admin/retention)", function () {
  const stack = stackSuite(this, { timeoutMs: 20_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  let employeeA: Person;
  const read = (person: Person) => api(stack.baseUrl, "GET", "/api/v1/admin/retention", { token: person.token });
  const put = (person: Person, body: unknown) => api(stack.baseUrl, "PUT", "/api/v1/admin/retention", { token: person.token, body });

  before(async () => {
    orgA = await freshOrganisation(stack, "Retention route A");
    orgB = await freshOrganisation(stack, "Retention route B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    employeeA = await freshUser(stack, { role: "employee", orgId: orgA });
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("keeps chats forever until an admin sets days; the change is audited and only touches the admin's organisation", async () => {
    const initial = await read(adminA);
    expect(initial.status).to.equal(200);
    expect(initial.body).to.deep.equal({ chat_retention_days: null, updated_at: null, updated_by: null, last_sweep: null, sweep_in_progress: null });

    const set = await put(adminA, { chat_retention_days: 30 });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(retentionResponse.safeParse(set.body).success, "matches the documented schema").to.equal(true);
    expect(set.body).to.include({ chat_retention_days: 30, updated_by: adminA.id });
    expect((await read(adminA)).body.chat_retention_days).to.equal(30);
    expect((await read(adminB)).body.chat_retention_days, "B's own setting is untouched").to.equal(null);

    expect((await put(adminA, { chat_retention_days: null })).body.chat_retention_days).to.equal(null);
    const audit = await db()("audit_log")
      .where({ org_id: orgA, action: "retention.updated" })
      .orderBy("created_at")
      .select("actor_id", "target_id", "before", "after");
    expect(audit).to.deep.equal([
      { actor_id: adminA.id, target_id: orgA, before: { chat_retention_days: null }, after: { chat_retention_days: 30 } },
      { actor_id: adminA.id, target_id: orgA, before: { chat_retention_days: 30 }, after: { chat_retention_days: null } },
    ]);
    expect(await db()("audit_log").where({ org_id: orgB, action: "retention.updated" }).count<{ count: string }[]>("* as count")).to.deep.equal([
      { count: "0" },
    ]);

    // B's admin sets B's; A's stays as A left it.
    expect((await put(adminB, { chat_retention_days: 3650 })).body.chat_retention_days).to.equal(3650);
    expect((await read(adminA)).body.chat_retention_days).to.equal(null);
  });

  it("answers 400 VALIDATION_ERROR to days out of range, not whole or not a number, and 403 to employees; nothing changes", async () => {
    await put(adminA, { chat_retention_days: 90 });
    for (const days of [0, -1, 99999, 3651, 1.5, "x", "30", true]) {
      const response = await put(adminA, { chat_retention_days: days });
      expect(response.status, `days ${JSON.stringify(days)}`).to.equal(400);
      expect(response.body.error.code).to.equal("VALIDATION_ERROR");
      expect(response.body.error.message).to.include("chat_retention_days");
    }
    for (const body of [{}, { chat_retention_days: 30, extra: 1 }]) {
      expect((await put(adminA, body)).body.error.code, JSON.stringify(body)).to.equal("VALIDATION_ERROR");
    }
    expect((await put(employeeA, { chat_retention_days: 1 })).status).to.equal(403);
    expect((await read(employeeA)).status).to.equal(403);
    expect((await read(adminA)).body.chat_retention_days, "every refusal left it as it was").to.equal(90);
    expect((await api(stack.baseUrl, "PUT", "/api/v1/admin/retention", { body: { chat_retention_days: 1 } })).status, "no token").to.equal(401);
  });

  it("is in the OpenAPI document", async () => {
    const document = await api(stack.baseUrl, "GET", "/api/v1/openapi.json");
    expect(Object.keys(document.body.paths["/api/v1/admin/retention"] ?? {})).to.include.members(["get", "put"]);
  });
});
