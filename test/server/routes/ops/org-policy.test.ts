/**
 * An organisation's policy, set by an operator: the ops API and `npm run org -- policy` change the
 * same stored limits through one command, each change is one audited event, and the limits reach
 * the organisation's next request (its tutor rate limit) and its admin assistant's turns, while
 * other organisations keep the defaults. Bad input is refused with a code; non-operators get 403.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, login } from "../../../harness/client";
import { stackSuite } from "../../../support/suite";
import { dropOrganisations } from "../../../support/organizations";
import { runOrgCli } from "../../../ops/org-cli";
import { organisationPolicy } from "../../../../db/queries/organisation-policy";

const OPERATOR_EMAIL = "admin@example.com";

describe("operator: organisation policy", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  const suffix = randomUUID().slice(0, 8);
  const created: string[] = [];
  let operator: string;
  let org: { id: string; slug: string };
  let adminToken: string;
  after(() => dropOrganisations(stack.server.deps.db, created));

  before(async () => {
    operator = (await login(stack.baseUrl, OPERATOR_EMAIL)).token;
    const adminEmail = `policy-${suffix}@policy.example`;
    const made = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", { token: operator, body: { name: `Policy ${suffix}`, admin: { email: adminEmail } } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    org = { id: made.body.organisation.id, slug: made.body.organisation.slug };
    created.push(org.id);
    adminToken = (await login(stack.baseUrl, adminEmail)).token;
  });

  const policyPath = () => `/api/v1/ops/orgs/${org.id}/policy`;
  const chat = () => api(stack.baseUrl, "POST", "/api/v1/chat", { token: adminToken, body: { message: `What is our leave policy? ${randomUUID()}` } });

  it("shows the product's defaults until an operator sets a limit", async () => {
    const shown = await api(stack.baseUrl, "GET", policyPath(), { token: operator });
    expect(shown.status).to.equal(200);
    expect(shown.body.policy.set).to.deep.equal({});
    expect(shown.body.policy.effective).to.include({
      tutor_messages_per_person_per_minute: stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE,
      tutor_messages_per_minute: stack.config.rateLimits.RATE_LIMIT_ORG_TUTOR_PER_MINUTE,
      admin_tool_rounds: stack.config.admin.ADMIN_MAX_TOOL_ROUNDS,
    });
  });

  it("applies a per-person tutor limit to the organisation's next request, records one audit event, and null puts the default back", async () => {
    const set = await api(stack.baseUrl, "PUT", policyPath(), { token: operator, body: { tutor_messages_per_person_per_minute: 1 } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.policy.set).to.deep.equal({ tutor_messages_per_person_per_minute: 1 });
    expect(set.body.policy.effective.tutor_messages_per_person_per_minute).to.equal(1);

    expect((await chat()).status, "the first message of the minute").to.equal(202);
    const refused = await chat();
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal("RATE_LIMITED");

    const operatorUser = (await login(stack.baseUrl, OPERATOR_EMAIL)).user;
    const events = await stack.server.deps.db("audit_log").where({ action: "organization.policy_changed", target_id: org.id });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ org_id: operatorUser.org_id, actor_id: operatorUser.id, target_type: "organization" });
    expect(events[0].before).to.deep.equal({});
    expect(events[0].after).to.deep.equal({ tutor_messages_per_person_per_minute: 1 });

    const reset = await api(stack.baseUrl, "PUT", policyPath(), { token: operator, body: { tutor_messages_per_person_per_minute: null } });
    expect(reset.body.policy.set).to.deep.equal({});
    expect((await chat()).status, "back on the default limit").to.equal(202);
  });

  it("keeps other organisations on the defaults", async () => {
    await api(stack.baseUrl, "PUT", policyPath(), { token: operator, body: { tutor_messages_per_minute: 7 } });
    const own = await organisationPolicy(stack.server.deps.db, stack.config, org.id);
    const demo = await organisationPolicy(stack.server.deps.db, stack.config, stack.demo.orgId);
    expect(own.tutor_messages_per_minute).to.equal(7);
    expect(demo.tutor_messages_per_minute).to.equal(stack.config.rateLimits.RATE_LIMIT_ORG_TUTOR_PER_MINUTE);
  });

  it("refuses a limit out of bounds, an unknown name, an empty change and a non-operator", async () => {
    for (const body of [{ admin_tool_rounds: 0 }, { admin_tool_rounds: 21 }, { tutor_messages_per_minute: 1.5 }, { no_such_limit: 3 }, {}]) {
      const refused = await api(stack.baseUrl, "PUT", policyPath(), { token: operator, body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
    }
    expect((await api(stack.baseUrl, "PUT", policyPath(), { token: adminToken, body: { admin_tool_rounds: 3 } })).status).to.equal(403);
    expect((await api(stack.baseUrl, "GET", `/api/v1/ops/orgs/${randomUUID()}/policy`, { token: operator })).status).to.equal(404);
  });

  it("npm run org -- policy set/show changes the same policy, audited, and refuses a bad pair as a usage mistake", async function () {
    this.timeout(60_000);
    const set = await runOrgCli(stack, ["policy", "set", org.slug, "admin_tool_rounds=3,admin_tool_calls_per_round=4"]);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.include("admin_tool_rounds = 3");
    const shown = await runOrgCli(stack, ["policy", "show", org.slug, "--json"]);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(JSON.parse(shown.stdout).effective).to.include({ admin_tool_rounds: 3, admin_tool_calls_per_round: 4, tutor_messages_per_minute: 7 });
    const back = await runOrgCli(stack, ["policy", "set", org.slug, "admin_tool_rounds=default"]);
    expect(back.code, back.stderr).to.equal(0);
    expect(await organisationPolicy(stack.server.deps.db, stack.config, org.id)).to.include({ admin_tool_rounds: stack.config.admin.ADMIN_MAX_TOOL_ROUNDS });
    const events = await stack.server.deps.db("audit_log").where({ action: "organization.policy_changed", target_id: org.id }).orderBy("created_at");
    expect(events.at(-1).details).to.include({ via: "cli" });
    const bad = await runOrgCli(stack, ["policy", "set", org.slug, "admin_tool_rounds=lots"]);
    expect(bad.code).to.equal(2);
  });
});
