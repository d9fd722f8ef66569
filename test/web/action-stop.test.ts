/**
 * The action card's Stop button in real Chromium against the real stack (issue 34, point 2): a
 * confirmed action running on a worker stops when the admin presses Stop, the card says exactly
 * what the stop left ("Stopped after N of 200: N done, M not run") as the database has it, and
 * Resume runs the rest, each item once.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import type { RunningWorkers } from "../../workers/host";
import { waitFor } from "../harness/client";
import { stackWorker, startOwnWorkers, type StackWorkers } from "../reliability/helpers";
import { useStack, type Stack } from "../support/stack";
import { addEmployees, cleanUp, freshUser, scriptTurn, unique, type Person } from "../workers/admin/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

const SIZE = 200;

describe("web: stopping an admin action from its card", function () {
  this.timeout(120_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let admin: Person;
  let stackActions: StackWorkers;
  let own: RunningWorkers;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    // Actions run on this suite's worker, slowly enough (5 items a batch, 100 ms apart) to press Stop mid-way.
    stackActions = stackWorker(stack, "admin-actions");
    await stackActions.pause();
    own = await startOwnWorkers({ WORKER_QUEUES: "admin-actions:1", ADMIN_ACTION_BATCH_SIZE: "5", ADMIN_ACTION_BATCH_PAUSE_MS: "100" });
    admin = await freshUser(stack, { role: "admin", name: `Ada Stop ${unique()}` });
    watched = await openPage(browser);
    page = watched.page;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin");
  });

  after(async () => {
    stack.llm.setResponder(null);
    await own?.close();
    stackActions?.resume();
    await browser?.close();
    await cleanUp(stack);
  });

  afterEach(() => {
    expect(watched.consoleErrors, "console errors").to.deep.equal([]);
  });

  it("stops a running action with the Stop button, shows what the stop left, and resumes the rest", async () => {
    const db = stack.server.deps.db;
    const department = `Stop Web ${unique()}`;
    const team = await addEmployees(
      stack,
      department,
      Array.from({ length: SIZE }, (_, i) => `Web Stopper ${i} ${unique()}`),
    );
    scriptTurn(stack, {
      calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }],
      answer: "I have prepared this change.",
    });
    await page.getByRole("link", { name: "Assistant" }).click();
    const input = page.getByLabel("Message", { exact: true });
    await input.fill(`Assign warehouse safety to ${department}`);
    await input.press("Enter");

    const card = page.locator(".action-card");
    await card.locator("button", { hasText: "Confirm" }).waitFor({ timeout: 20_000 });
    const actionId = (await card.getAttribute("data-action-id"))!;
    expect(await card.locator("button", { hasText: "Stop" }).count(), "no Stop before it runs").to.equal(0);
    await card.locator("button", { hasText: "Confirm" }).click();

    const done = async () =>
      Number((await db("admin_action_items").where({ action_id: actionId, status: "done" }).count<{ count: string }[]>("* as count"))[0]!.count);
    await card.locator(".action-status[data-status='running']").waitFor({ timeout: 20_000 });
    await waitFor(async () => (await done()) >= 30, 60_000, "30 items done");
    await card.locator("button", { hasText: "Stop" }).click();
    await card.locator(".action-status[data-status='stopped']").waitFor({ timeout: 20_000 });

    const stopped = await db("admin_actions").where({ id: actionId }).first();
    expect(stopped.status).to.equal("stopped");
    const doneAtStop = await done();
    expect(doneAtStop).to.equal(stopped.done);
    expect(doneAtStop).to.be.within(30, SIZE - 1);
    const summary = card.locator(".action-summary");
    await summary.waitFor();
    expect(await summary.textContent()).to.equal(`Stopped after ${doneAtStop} of ${SIZE}: ${doneAtStop} done, ${SIZE - doneAtStop} not run.`);
    expect(await db("audit_log").where({ action_id: actionId })).to.have.length(doneAtStop);
    expect(await card.locator("button", { hasText: "Stop" }).count(), "no Stop once stopped").to.equal(0);
    await card
      .locator(".checklist li[data-status='done']")
      .nth(doneAtStop - 1)
      .waitFor({ timeout: 5_000 });
    expect(await card.locator(".checklist li[data-status='done']").count()).to.equal(doneAtStop);

    await card.locator("button", { hasText: /^Resume$/ }).click();
    await card.locator(".action-status[data-status='completed']").waitFor({ timeout: 60_000 });
    await card
      .locator(".checklist li[data-status='done']")
      .nth(SIZE - 1)
      .waitFor({ timeout: 10_000 });
    expect(await card.locator(".checklist li[data-status='done']").count()).to.equal(SIZE);
    expect(await card.locator(".action-summary").count(), "the stop summary goes once it ran again").to.equal(0);
    const enrolled = await db("enrollments")
      .whereIn(
        "user_id",
        team.map((t) => t.id),
      )
      .andWhere({ course_id: DEMO_IDS.courseIds.warehouseSafety })
      .pluck("user_id");
    expect(new Set(enrolled).size).to.equal(SIZE);
    expect(enrolled).to.have.length(SIZE);
    expect(await db("audit_log").where({ action_id: actionId })).to.have.length(SIZE, "no item applied twice");
  });
});
