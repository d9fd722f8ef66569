/**
 * The content-gap report against the real stack (offline model, hashed embeddings): questions
 * the tutor answered from general knowledge are grouped by wording and ranked by employees; a
 * group leaves once a later question of it is answered from an uploaded document, and comes back
 * when that answer is rated down. The grouping runs in a `content-gaps` job and is cached: the
 * endpoint answers 202 `computing`, then the cached report until the data changes; deactivated
 * people's questions leave it; requests are rate limited.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { createApp } from "../../../../server/app";
import type { ServerDeps } from "../../../../server/deps";
import { contentGapsResponse } from "../../../../server/routes/insights/schema";
import { groupContentGaps } from "../../../../workers/insights/group-questions";
import type { AnsweredQuestion } from "../../../../db/queries/content-gaps";
import { embedPendingQuestions } from "../../../../workers/maintenance/question-vectors";
import { api, login, upload, waitFor } from "../../../harness/client";
import { makeTxt } from "../../../support/document-fixtures";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { ask } from "../../../workers/tutor/helpers";
import { asLearner as learner, dropOrganisation, freshOrganisation } from "../allowance/helpers";
import { configWith } from "../../../support/tunables";

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

  type Group = { id: string; count: number; employees: number; examples: string[]; departments: string[]; languages: string[] };
  const gaps = (token: string, query = "") => api(stack.baseUrl, "GET", `/api/v1/admin/insights/content-gaps${query}`, { token });
  /** Asks until the report is `ready` (202 computing / 200 refreshing meanwhile); every answer matches the documented schema. */
  const readyReport = async (token: string, query = "") =>
    waitFor(
      async () => {
        const response = await gaps(token, query);
        expect(response.status, JSON.stringify(response.body)).to.be.oneOf([200, 202]);
        expect(contentGapsResponse.safeParse(response.body).success, "matches the documented schema").to.equal(true);
        return response.body.status === "ready" ? response.body : undefined;
      },
      20_000,
      "the content-gap report",
    );
  const report = async (): Promise<Group[]> => {
    await embedPendingQuestions(stack.workers.deps, 500);
    return (await readyReport(admin.token)).groups;
  };

  /** The organisation's own completed report jobs: other suites' and tests' jobs may finish meanwhile. */
  const completedFor = async (org: string) =>
    (await stack.server.deps.producer.queue("content-gaps").getJobs(["completed"], 0, -1)).filter((job) => job?.data?.orgId === org).length;

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
    // The next hour: a since is rounded down to its hour, so one in this hour would include this hour's questions.
    const future = await readyReport(admin.token, `?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(future.groups).to.deep.equal([]);
  });

  it("has groups to show in the demo organisation as seeded (npm start), led by the company-car question three people asked", async () => {
    await embedPendingQuestions(stack.workers.deps, 500);
    const demoAdmin = (await login(stack.baseUrl, "admin@example.com")).token;
    const response = { body: await readyReport(demoAdmin) };
    const car = response.body.groups.find((g: { examples: string[] }) => g.examples.some((e) => e.includes("company car")));
    expect(car).to.include({ count: 3, employees: 3 });
    const rated = response.body.groups.find((g: { languages: string[] }) => g.languages.includes("es"));
    expect(rated, "the rated-down Spanish question").to.not.equal(undefined);
  });

  it("keeps apart questions below the similarity and joins those above it", async () => {
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
    expect((await groupContentGaps(questions, 0.9)).map((g) => g.examples)).to.deep.equal([["b", "a"], ["c"]]);
    expect((await groupContentGaps(questions, 0.99)).map((g) => g.count)).to.deep.equal([1, 1, 1]);
  });

  it("computes in a job, then serves the cache until new questions, ratings or deactivations make it stale", async () => {
    const org = await freshOrganisation(stack, "Cache org");
    // An explicit window: the default one starts on the hour, so a run across an hour's turn would name a new report mid-test.
    const lastDay = `?since=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`;
    try {
      const boss = await freshUser(stack, { role: "admin", orgId: org });
      const ana = await freshUser(stack, { orgId: org, department: "Sales" });
      const leo = await freshUser(stack, { orgId: org, department: "Ops" });
      await ask(stack, learner(ana), CAR);
      await ask(stack, learner(leo), DRESS);
      await embedPendingQuestions(stack.workers.deps, 500);

      const jobsBefore = await completedFor(org);
      const first = await gaps(boss.token, lastDay);
      expect(first.status, "nothing cached yet: the server groups nothing itself").to.equal(202);
      expect(first.body).to.include({ status: "computing", retry_after: 2, computed_at: null });
      expect(first.headers.get("retry-after")).to.equal("2");
      const ready = await readyReport(boss.token, lastDay);
      expect(ready.groups.map((g: Group) => g.examples[0]).sort()).to.deep.equal([CAR, DRESS].sort());
      const computedJobs = (await completedFor(org)) - jobsBefore;
      expect(computedJobs, "one job, however often the page asked meanwhile").to.equal(1);

      // Served from the cache: same report, no new job.
      for (let i = 0; i < 3; i++) expect((await gaps(boss.token, lastDay)).body).to.deep.include({ status: "ready", computed_at: ready.computed_at });
      expect((await completedFor(org)) - jobsBefore).to.equal(1);

      // A new question vector makes it stale: the old report is shown while the new one is computed.
      await ask(stack, learner(leo), CAR_AGAIN);
      await embedPendingQuestions(stack.workers.deps, 500);
      const refreshing = await gaps(boss.token, lastDay);
      expect(refreshing.status).to.equal(200);
      expect(refreshing.body).to.include({ status: "refreshing", computed_at: ready.computed_at });
      const fresh = await readyReport(boss.token, lastDay);
      expect(fresh.groups[0]).to.include({ count: 2, employees: 2 });

      // A deactivated person's questions leave the report; the other organisation sees none of this one's.
      await stack.server.deps.db("users").where({ id: leo.id }).update({ is_active: false, deactivated_at: new Date() });
      const withoutLeo = await readyReport(boss.token, lastDay);
      expect(withoutLeo.groups.map((g: Group) => [g.examples, g.employees])).to.deep.equal([[[CAR], 1]]);
      const elsewhere = await readyReport(admin.token);
      expect(elsewhere.groups.flatMap((g: Group) => g.departments)).to.not.include("Ops");
    } finally {
      await dropOrganisation(stack, org);
    }
  });

  it("is rate limited per admin (429 with Retry-After), before anything is read or queued", async () => {
    const server: Server = createServer(
      createApp({ ...stack.server.deps, config: configWith(stack.server.deps.config, { RATE_LIMIT_CONTENT_GAPS_PER_MINUTE: 2 }) } as ServerDeps).callback(),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const limitedAdmin = await freshUser(stack, { role: "admin", orgId });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await api(url, "GET", "/api/v1/admin/insights/content-gaps", { token: limitedAdmin.token }));
      expect(statuses.slice(0, 2).map((r) => r.status)).to.not.include(429);
      expect(statuses[2]!.status).to.equal(429);
      expect(statuses[2]!.body.error.code).to.equal("RATE_LIMITED");
      expect(Number(statuses[2]!.headers.get("retry-after"))).to.be.within(1, 60);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("bounds the grouping: at most maxGroups compared, a recent one-off displaces the oldest singleton, and the event loop is never blocked past the bound", async () => {
    const dimensions = 384;
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    const questions: AnsweredQuestion[] = Array.from({ length: 1_500 }, (_, i) => ({
      id: `q${i}`,
      content: `question ${i}`,
      askedAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000),
      userId: `u${i % 50}`,
      department: null,
      language: "en",
      rung: "general",
      rating: null,
      embedding: Array.from({ length: dimensions }, random),
    }));
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    const started = performance.now();
    const groups = await expectNoLongBlock("grouping 1,500 one-off questions", () => groupContentGaps(questions, 0.8, 100));
    const ms = performance.now() - started;
    clearInterval(ticker);
    expect(groups.length, "random vectors are all one-offs, capped").to.equal(100);
    expect(groups.map((g) => g.id)).to.include("q1499", "the newest one-off is kept");
    expect(groups.map((g) => g.id)).to.not.include("q0", "the oldest one-off made room");
    // Timers ran while it grouped: it yields every ~20 ms instead of holding the loop throughout.
    expect(turns, `${Math.round(ms)} ms of grouping`).to.be.greaterThan(1);
  });
});
