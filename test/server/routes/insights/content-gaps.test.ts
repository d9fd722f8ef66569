/**
 * The content-gap report against the real stack (offline model, hashed embeddings): questions
 * the tutor answered from general knowledge are grouped by wording and ranked by employees; a
 * group leaves once a later question of it is answered from an uploaded document, and comes back
 * when that answer is rated down.
 */
import { expect } from "chai";
import { contentGapsResponse } from "../../../../server/openapi/routes/insights";
import { groupContentGaps } from "../../../../server/routes/insights/group-questions";
import { embedPendingQuestions } from "../../../../workers/maintenance/question-vectors";
import { api, login, upload, waitFor } from "../../../support/client";
import { makeTxt } from "../../../support/document-fixtures";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { ask } from "../../../workers/tutor/helpers";
import { asLearner as learner, dropOrganisation, freshOrganisation } from "../allowance/helpers";

const CAR = "How do I book a company car for a client visit?";
const CAR_AGAIN = "How can I book a company car for client visits?";
const DRESS = "What is the dress code at the trade fair stand?";

describe("content gaps (GET /api/v1/admin/insights/content-gaps)", function () {
  this.timeout(90_000);
  let stack: Stack;
  let orgId: string;
  let admin: Person;
  let sales: Person;
  let qa: Person;

  const report = async () => {
    await embedPendingQuestions(stack.workers.deps, 500);
    const response = await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps", { token: admin.token });
    expect(response.status).to.equal(200);
    expect(contentGapsResponse.safeParse(response.body).success, "matches the documented schema").to.equal(true);
    return response.body.groups as Array<{ id: string; count: number; employees: number; examples: string[]; departments: string[]; languages: string[] }>;
  };

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    orgId = await freshOrganisation(stack, "Gap org");
    admin = await freshUser(stack, { role: "admin", orgId });
    sales = await freshUser(stack, { orgId, department: "Sales" });
    qa = await freshUser(stack, { orgId, department: "QA" });
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisation(stack, orgId);
  });

  it("groups general-knowledge questions by wording, ranked by employees, and closes a group once company material answers it", async () => {
    const first = await ask(stack, learner(sales), CAR);
    expect(first.answer?.metadata.rung).to.equal("general");
    await ask(stack, learner(qa), CAR_AGAIN);
    await ask(stack, learner(qa), DRESS);

    let groups = await report();
    expect(groups.map((g) => [g.count, g.employees])).to.deep.equal([
      [2, 2],
      [1, 1],
    ]);
    expect(groups[0]!.examples).to.deep.equal([CAR_AGAIN, CAR]);
    expect(groups[0]!.departments).to.deep.equal(["QA", "Sales"]);
    expect(groups[0]!.languages).to.deep.equal(["en"]);
    expect(groups[1]!.examples).to.deep.equal([DRESS]);
    const carGroup = groups[0]!.id;

    const uploaded = await upload(stack.baseUrl, admin.token, {
      name: "company-cars.txt",
      bytes: makeTxt(
        "Company cars\n\nTo book a company car for a client visit, fill in form F-12 at the fleet desk two days ahead. Company cars are for client visits only.",
      ),
      type: "text/plain",
    });
    expect(uploaded.status).to.equal(202);
    await waitFor(
      async () => (await api(stack.baseUrl, "GET", `/api/v1/documents/${uploaded.body.document_id}`, { token: admin.token })).body.status === "COMPLETED",
      30_000,
      "indexing",
    );
    const answered = await ask(stack, learner(sales), CAR);
    expect(answered.answer?.metadata.rung).to.equal("chunks");

    groups = await report();
    expect(groups.map((g) => g.examples[0])).to.deep.equal([DRESS]);

    // Rated down, the company answer is a gap again: the question is back.
    const rated = await api(stack.baseUrl, "POST", `/api/v1/chat/messages/${answered.answer!.id}/feedback`, { token: sales.token, body: { rating: "down" } });
    expect(rated.status).to.equal(200);
    groups = await report();
    expect(groups[0]!.id).to.equal(carGroup);
    expect(groups[0]!.count).to.equal(3);
  });

  it("refuses employees (403) and a malformed since (400); a since after every question empties the report", async () => {
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps", { token: sales.token })).status).to.equal(403);
    const bad = await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps?since=yesterday", { token: admin.token });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal("VALIDATION_ERROR");
    const future = await api(
      stack.baseUrl,
      "GET",
      `/api/v1/admin/insights/content-gaps?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      {
        token: admin.token,
      },
    );
    expect(future.body.groups).to.deep.equal([]);
  });

  it("has groups to show in the demo organisation as seeded (npm start), led by the company-car question three people asked", async () => {
    await embedPendingQuestions(stack.workers.deps, 500);
    const demoAdmin = (await login(stack.baseUrl, "admin@example.com")).token;
    const response = await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps", { token: demoAdmin });
    const car = response.body.groups.find((g: { examples: string[] }) => g.examples.some((e) => e.includes("company car")));
    expect(car).to.include({ count: 3, employees: 3 });
    const rated = response.body.groups.find((g: { languages: string[] }) => g.languages.includes("es"));
    expect(rated, "the rated-down Spanish question").to.not.equal(undefined);
  });

  it("keeps apart questions below the similarity and joins those above it", () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 1, 9, minutes));
    const q = (id: string, embedding: number[], minutes: number, rung = "general") => ({
      id,
      content: id,
      askedAt: at(minutes),
      userId: id,
      department: null,
      language: "en",
      rung,
      rating: null,
      embedding,
    });
    const questions = [q("a", [1, 0], 1), q("b", [0.95, 0.31], 2), q("c", [0, 1], 3), q("d", [0.99, 0.1], 0, "chunks")];
    // "d" was answered from material, but before the gap questions: it closes nothing.
    expect(groupContentGaps(questions, 0.9).map((g) => g.examples)).to.deep.equal([["b", "a"], ["c"]]);
    expect(groupContentGaps(questions, 0.99).map((g) => g.count)).to.deep.equal([1, 1, 1]);
  });
});
