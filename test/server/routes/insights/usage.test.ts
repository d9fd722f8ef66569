/** AI usage and cost for admins: one month by use case, model, day and user, the allowance beside it, and the CSV. */
import { expect } from "chai";
import { usageResponse } from "../../../../server/routes/insights/schema";
import { api } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { dropOrganisation, freshOrganisation } from "../allowance/helpers";

describe("AI usage for admins (GET /api/v1/admin/usage)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let orgId: string;
  let admin: Person;
  let ana: Person;
  let ben: Person;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    orgId = await freshOrganisation(stack, "Usage org");
    admin = await freshUser(stack, { role: "admin", orgId });
    ana = await freshUser(stack, { orgId, name: "Ana" });
    ben = await freshUser(stack, { orgId, name: "Ben" });
    const row = (userId: string | null, useCase: string, model: string, prompt: number, completion: number, cost: number, at: string) => ({
      org_id: orgId,
      user_id: userId,
      use_case: useCase,
      model,
      prompt_tokens: prompt,
      completion_tokens: completion,
      cost_usd: cost,
      created_at: at,
    });
    await stack.server.deps
      .db("llm_usage_log")
      .insert([
        row(ana.id, "generation", "gpt-x", 1_000, 200, 0.01, "2026-10-01T08:00:00Z"),
        row(ana.id, "tutor", "gpt-x", 100, 5, 0.001, "2026-10-01T09:00:00Z"),
        row(ben.id, "generation", "=HYPERLINK(1)", 300, 100, 0.004, "2026-10-31T23:59:00Z"),
        row(null, "ingestion", "embedding:e5", 5_000, 0, 0, "2026-10-15T12:00:00Z"),
        row(ana.id, "generation", "gpt-x", 999_999, 0, 9, "2026-11-01T00:00:00Z"),
      ]);
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisation(stack, orgId);
  });

  it("reports one month by use case, model, day and top users, with the allowance", async () => {
    const report = await api(stack.baseUrl, "GET", "/api/v1/admin/usage?month=2026-10", { token: admin.token });
    expect(report.status).to.equal(200);
    expect(usageResponse.safeParse(report.body).success, "matches the documented schema").to.equal(true);
    expect(report.body.month).to.equal("2026-10");
    expect(report.body.totals).to.deep.equal({ calls: 4, prompt_tokens: 6_400, completion_tokens: 305, tokens: 6_705, cost_usd: 0.015 });
    expect(report.body.by_use_case.map((u: { use_case: string; tokens: number }) => [u.use_case, u.tokens])).to.deep.equal([
      ["ingestion", 5_000],
      ["generation", 1_600],
      ["tutor", 105],
    ]);
    expect(report.body.by_model.map((m: { model: string }) => m.model)).to.deep.equal(["embedding:e5", "gpt-x", "=HYPERLINK(1)"]);
    expect(report.body.by_day).to.have.length(31);
    expect(report.body.by_day[0]).to.include({ day: "2026-10-01", tokens: 1_305, calls: 2 });
    expect(report.body.by_day[30]).to.include({ day: "2026-10-31", tokens: 400 });
    expect(report.body.by_day[1]).to.include({ day: "2026-10-02", tokens: 0 });
    expect(report.body.top_users.map((u: { name: string; tokens: number }) => [u.name, u.tokens])).to.deep.equal([
      ["Ana", 1_305],
      ["Ben", 400],
    ]);
    expect(report.body.allowance).to.include({ unlimited: true, resets_at: "2026-11-01T00:00:00.000Z" });
  });

  it("exports the month as CSV, one line per day, use case and model, with formula-looking text defused", async () => {
    const response = await fetch(`${stack.baseUrl}/api/v1/admin/usage/csv?month=2026-10`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.include("text/csv");
    expect(response.headers.get("content-disposition")).to.include("ai-usage-2026-10.csv");
    const lines = (await response.text()).trim().split("\r\n");
    expect(lines).to.deep.equal([
      "day,use_case,model,calls,prompt_tokens,completion_tokens,cost_usd",
      "2026-10-01,generation,gpt-x,1,1000,200,0.01",
      "2026-10-01,tutor,gpt-x,1,100,5,0.001",
      "2026-10-15,ingestion,embedding:e5,1,5000,0,0",
      "2026-10-31,generation,'=HYPERLINK(1),1,300,100,0.004",
    ]);
  });

  it("is for admins only, and refuses a malformed month with 400", async () => {
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/usage", { token: ana.token })).status).to.equal(403);
    for (const month of ["2026-13", "October", "2026-1"]) {
      const bad = await api(stack.baseUrl, "GET", `/api/v1/admin/usage?month=${month}`, { token: admin.token });
      expect(bad.status, month).to.equal(400);
      expect(bad.body.error.code).to.equal("VALIDATION_ERROR");
    }
    const current = await api(stack.baseUrl, "GET", "/api/v1/admin/usage", { token: admin.token });
    expect(current.body.month).to.equal(new Date().toISOString().slice(0, 7));
  });
});
