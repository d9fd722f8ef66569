/**
 * What issue 23 added to the pages, in real Chromium against the real stack: an employee of a
 * spent organisation told the tutor is paused (and a send refused with 402, nothing stored).
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { insertUsage } from "../../db/queries/llm-usage";
import { api, login, upload, waitFor } from "../harness/client";
import { embedPendingQuestions } from "../../workers/maintenance/question-vectors";
import { ask as askTutor } from "../workers/tutor/helpers";
import { useStack, type Stack } from "../support/stack";
import { addEmployees, cleanUp, freshUser, scriptTurn, unique, type Person } from "../workers/admin/helpers";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { asLearner, dropOrganisation, freshOrganisation } from "../server/routes/allowance/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

declare const document: any;

const PARKING = "Where can visitors park their car when they come to the office?";

async function ask(page: Page, text: string): Promise<void> {
  const input = page.getByLabel("Message", { exact: true });
  await input.fill(text);
  await input.press("Enter");
}

/** The newest answer bubble once it has finished streaming. */
async function lastAnswerDone(page: Page) {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll("li.msg.assistant");
    return all.length > 0 && all[all.length - 1].getAttribute("aria-busy") === "false" && all[all.length - 1].querySelector(".feedback");
  });
  return page.locator("li.msg.assistant").last();
}

describe("web: allowance, feedback, citations, usage and content gaps in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let orgId: string;
  let operator: string;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    operator = (await login(stack.baseUrl, "admin@example.com")).token;
    orgId = await freshOrganisation(stack, "Web org");
  });
  beforeEach(async () => {
    watched = await openPage(browser);
  });
  afterEach(async () => {
    await watched.context.close();
    stack.llm.reset();
  });
  after(async () => {
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisation(stack, orgId);
  });

  it("tells an employee of a spent organisation that the tutor is paused, and a send is refused with nothing stored", async () => {
    const employee: Person = await freshUser(stack, { orgId });
    await api(stack.baseUrl, "PUT", `/api/v1/ops/orgs/${orgId}/ai-allowance`, { token: operator, body: { monthly_tokens: 10 } });
    await insertUsage(
      stack.server.deps.db,
      {
        orgId,
        userId: null,
        useCase: "tutor",
        model: "m",
        promptTokens: 10,
        completionTokens: 0,
        costUsd: 0,
        durationMs: 1,
        streamed: false,
        callKey: `web-${orgId}`,
      },
      { defaultMonthlyTokens: 0 },
    );
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, employee.token);
    const paused = page.locator("[data-allowance=exhausted]");
    await paused.waitFor();
    expect(await paused.textContent()).to.match(/The tutor is paused until .*\b20\d\d\b/);

    const input = page.getByLabel("Message", { exact: true });
    await input.fill("What is the refund window?");
    await input.press("Enter");
    const refusal = page.locator("p.alert[role=alert]");
    await refusal.waitFor();
    expect(await refusal.textContent()).to.match(/paused until .* not sent/);
    const stored = await stack.server.deps.db("chat_messages").where({ org_id: orgId }).count("* as n");
    expect(Number(stored[0]!.n)).to.equal(0);
    expect(watched.consoleErrors.filter((e) => !/402/.test(e))).to.deep.equal([]);
  });

  it("rates an answer down with a comment from the thumbs under it, and shows the rating again after a reload", async () => {
    const employee = await freshUser(stack);
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, employee.token);
    await ask(page, "How many days do customers have to return an item?");
    const answer = await lastAnswerDone(page);
    await answer.getByRole("button", { name: "Not helpful" }).click();
    await answer.getByLabel("What was missing? (optional)").fill("The form number");
    await answer.getByRole("button", { name: "Send" }).click();
    await answer.locator(".feedback-thanks").waitFor();
    const stored = await stack.server.deps.db("chat_feedback").where({ user_id: employee.id }).first("rating", "comment");
    expect(stored).to.deep.equal({ rating: "down", comment: "The form number" });

    await page.reload();
    await page.locator(".topbar .connection.connected").waitFor();
    await page.locator("button.session-open").first().click();
    await page.locator("li.msg.assistant .thumb[aria-pressed=true]").first().waitFor();
    expect(await page.locator("li.msg.assistant .thumb[aria-pressed=true] .sr-only").textContent()).to.equal("Not helpful");
    expect(watched.consoleErrors).to.deep.equal([]);
  });

  it("lists a content-gap group with an upload button; the upload answers it and the group leaves the list", async () => {
    const gapOrg = await freshOrganisation(stack, "Gap web org");
    try {
      const admin = await freshUser(stack, { role: "admin", orgId: gapOrg });
      const employee = await freshUser(stack, { orgId: gapOrg, department: "Sales" });
      const asker = asLearner(employee);
      expect((await askTutor(stack, asker, PARKING)).answer?.metadata.rung).to.equal("general");
      await embedPendingQuestions(stack.workers.deps, 500);

      const { page } = watched;
      // Nothing is cached for the new organisation: the page gets 202 `computing`, says so, and asks again until it is ready.
      const computing = page.waitForResponse((response) => response.url().includes("/insights/content-gaps") && response.status() === 202);
      await signInWithToken(page, stack.baseUrl, admin.token, "/admin#gaps");
      expect((await (await computing).json()).status).to.equal("computing");
      const group = page.locator("section.gap-group");
      await group.first().waitFor();
      expect(await page.locator("[data-report-status]").count(), "the computing notice is gone once the report is ready").to.equal(0);
      expect(await group.count()).to.equal(1);
      expect(await group.locator("h2").textContent()).to.include(PARKING);
      expect(await group.locator(".gap-meta").textContent())
        .to.include("1 question from 1 person")
        .and.include("Sales");

      await group.locator("input[type=file]").setInputFiles({
        name: "visitor-parking.txt",
        mimeType: "text/plain",
        buffer: Buffer.from(
          "Visitor parking\n\nWhen visitors come to the office, they can park their car in the visitor car park behind building B. Reserve a space at reception.",
        ),
      });
      await group.locator("p.notice", { hasText: "Uploaded visitor-parking.txt" }).waitFor();
      const indexed = await waitFor(
        async () => (await stack.server.deps.db("documents").where({ org_id: gapOrg, status: "COMPLETED" }).first("id")) as { id: string } | undefined,
        30_000,
        "the uploaded document to be indexed",
      );
      expect(indexed.id).to.be.a("string");
      expect((await askTutor(stack, asker, PARKING)).answer?.metadata.rung).to.equal("chunks");
      await embedPendingQuestions(stack.workers.deps, 500);

      // New questions make the cached report stale: Refresh shows it while the new one is computed, then the new one.
      await page.getByRole("button", { name: "Refresh" }).click();
      await page.locator(".content-gaps .empty").waitFor({ timeout: 20_000 });
      expect(await group.count()).to.equal(0);
      expect(watched.consoleErrors).to.deep.equal([]);
    } finally {
      await dropOrganisation(stack, gapOrg);
    }
  });

  it("opens the passage behind a citation marker and a source, with the original document one click away", async () => {
    const docOrg = await freshOrganisation(stack, "Citation web org");
    try {
      const admin = await freshUser(stack, { role: "admin", orgId: docOrg });
      const employee = await freshUser(stack, { orgId: docOrg });
      const uploaded = await upload(stack.baseUrl, admin.token, {
        name: "fleet.txt",
        bytes: Buffer.from("Company cars\n\nTo book a company car for a client visit, fill in form F-12 at the fleet desk two days ahead."),
        type: "text/plain",
      });
      await waitFor(
        async () => (await api(stack.baseUrl, "GET", `/api/v1/documents/${uploaded.body.document_id}`, { token: admin.token })).body.status === "COMPLETED",
        30_000,
        "indexing",
      );
      const { page } = watched;
      await signInWithToken(page, stack.baseUrl, employee.token);
      await ask(page, "How do I book a company car for a client visit?");
      const answer = await lastAnswerDone(page);
      await answer.locator("a.cite-marker").first().click();
      const passage = answer.locator("section.passage");
      await passage.locator(".passage-text").waitFor();
      expect(await passage.locator(".passage-text").textContent()).to.include("form F-12");
      expect(await passage.getAttribute("data-index")).to.equal("1");

      await passage.getByRole("button", { name: "Close" }).click();
      expect(await passage.count()).to.equal(0);
      await answer.locator(".citations button.cite-open").first().click();
      await passage.locator(".passage-text").waitFor();
      const [popup] = await Promise.all([watched.context.waitForEvent("page"), passage.getByRole("button", { name: "Open the original document" }).click()]);
      expect(popup.url()).to.match(/^blob:/);
      expect(watched.consoleErrors).to.deep.equal([]);
    } finally {
      await dropOrganisation(stack, docOrg);
    }
  });

  it("shows an admin the month's usage with a uPlot daily chart, tables and a CSV export", async () => {
    const usageOrg = await freshOrganisation(stack, "Usage web org");
    try {
      const admin = await freshUser(stack, { role: "admin", orgId: usageOrg, name: "Ada Admin" });
      await api(stack.baseUrl, "PUT", `/api/v1/ops/orgs/${usageOrg}/ai-allowance`, { token: operator, body: { monthly_tokens: 50_000 } });
      for (const [i, useCase] of ["generation", "tutor"].entries()) {
        await insertUsage(
          stack.server.deps.db,
          {
            orgId: usageOrg,
            userId: admin.id,
            useCase,
            model: "gpt-x",
            promptTokens: 1_000 * (i + 1),
            completionTokens: 0,
            costUsd: 0.01,
            durationMs: 1,
            streamed: false,
            callKey: `usage-web-${usageOrg}-${i}`,
          },
          { defaultMonthlyTokens: 0 },
        );
      }
      const { page } = watched;
      await signInWithToken(page, stack.baseUrl, admin.token, "/admin#usage");
      await page.locator(".usage .chart .uplot canvas").waitFor();
      expect(await page.locator(".usage-summary").textContent())
        .to.include("3,000")
        .and.include("47,000 left");
      const useCases = await page.locator("table", { hasText: "By use case" }).locator("tbody tr td:first-child").allTextContents();
      expect(useCases).to.deep.equal(["tutor", "generation"]);
      expect(await page.locator(".allowance-left").textContent()).to.include("47,000 tokens left");
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
      expect(download.suggestedFilename()).to.match(/^ai-usage-\d{4}-\d{2}\.csv$/);
      expect(watched.consoleErrors).to.deep.equal([]);
    } finally {
      await dropOrganisation(stack, usageOrg);
    }
  });

  it("drops 'Nothing has changed yet' from a proposal once its action ran, live and after a reload; a seeded document says it is read whole", async () => {
    const admin = await freshUser(stack, { role: "admin" });
    const department = `Gap Team ${unique()}`;
    await addEmployees(stack, department, ["Dana Web", "Eli Web"]);
    scriptTurn(stack, {
      calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }],
      answer: "I have prepared this change.",
    });
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin#assistant");
    await ask(page, `Assign warehouse safety to ${department}`);
    const card = page.locator(".action-card");
    await card.locator("button", { hasText: "Confirm" }).waitFor({ timeout: 20_000 });
    const answerText = page.locator("li.msg.assistant .answer-text").last();
    // The card can arrive while the answer's last line (the proposal's footer) is still streaming.
    await page
      .waitForFunction(
        () => {
          const texts = document.querySelectorAll("li.msg.assistant .answer-text");
          return texts.length > 0 && texts[texts.length - 1].textContent.includes("Nothing has changed yet");
        },
        undefined,
        { timeout: 10_000 },
      )
      .catch(() => undefined);
    expect(await answerText.textContent()).to.include("Nothing has changed yet");

    await card.locator("button", { hasText: "Confirm" }).click();
    await page.locator(".action-card .action-status[data-status='completed']").waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => {
      const texts = document.querySelectorAll("li.msg.assistant .answer-text");
      return texts.length > 0 && !texts[texts.length - 1].textContent.includes("Nothing has changed yet");
    });
    expect(await answerText.textContent()).to.include("I have prepared this change.");

    await page.reload();
    await page.locator(".topbar .connection.connected").waitFor();
    await page.locator("button.session-open").first().click();
    await page.locator(".action-card .action-status[data-status='completed']").waitFor();
    expect(await page.locator("li.msg.assistant .answer-text").last().textContent()).to.not.include("Nothing has changed yet");

    await page.getByRole("link", { name: "Documents" }).click();
    const seeded = page.locator(`li.document[data-document-id="${DEMO_IDS.documentIds.warehouseSafety}"]`);
    await seeded.waitFor();
    expect(await seeded.locator(".doc-meta").textContent())
      .to.include("0 chunks")
      .and.include("read whole by the tutor");
    expect(watched.consoleErrors).to.deep.equal([]);
  });
});
