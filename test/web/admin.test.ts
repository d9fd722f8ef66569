/**
 * The admin console in real Chromium against the real stack: documents uploaded by drop and by
 * picker move live to COMPLETED, limits are enforced before upload, the assistant's tool calls
 * and proposed change show as cards, Confirm runs it as a live checklist, a partial run resumes,
 * Bull Board opens signed in, and the console fits a 360 px phone.
 */
import { mkdirSync } from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { useThreadEntry } from "../../workers/ingestion/isolation/thread-pool";
import { addEmployees, cleanUp, freshUser, scriptTurn, unique, type Person } from "../workers/admin/helpers";
import { useStack, type Stack } from "../support/stack";
import { startOwnWorkers, stackWorker } from "../reliability/helpers";
import { launchBrowser, openPage, signInAs, type WatchedPage } from "./browser";

// Globals of the page: the callbacks given to page.evaluate/waitForFunction run in Chromium, not in Node.
declare const document: any, window: any, sessionStorage: any, DataTransfer: any, DragEvent: any;

/** Records every status a document row shows, from the moment it appears (no reloads in between); `title` is its file name without extension. */
async function watchStatuses(page: Page, title: string): Promise<void> {
  // A string, not a function: the test runner's transpiler would wrap a function in helpers the page lacks.
  await page.evaluate(`(() => {
    const wanted = ${JSON.stringify(title)};
    const seen = (window.seenStatuses = []);
    const record = () => {
      for (const row of document.querySelectorAll(".document")) {
        // By file name: the title changes to the document's own heading once it is read, which can be before the row first shows.
        if (!row.querySelector(".doc-meta")?.textContent?.startsWith(wanted)) continue;
        const status = row.querySelector("[data-status]")?.getAttribute("data-status");
        if (status && seen.at(-1) !== status) seen.push(status);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
}

describe("web: the admin console in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let admin: Person;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    admin = await freshUser(stack, { role: "admin", name: `Ada Console ${unique()}` });
    watched = await openPage(browser);
    page = watched.page;
    await signInAs(page, `${stack.baseUrl}/admin`, admin.email);
  });

  after(async () => {
    stack.llm.setResponder(null);
    await browser?.close();
    await stack.server.deps.db("documents").where({ uploaded_by: admin.id }).delete();
    await cleanUp(stack);
  });

  afterEach(() => {
    expect(watched.consoleErrors, "console errors").to.deep.equal([]);
    expect(
      watched.dialogs.filter((d) => !d.startsWith("confirm")),
      "dialogs",
    ).to.deep.equal([]);
  });

  it("shows the upload limits before anything is sent and refuses an oversized file in the page", async () => {
    const limits = (await page.locator("#upload-limits").textContent())!;
    expect(limits).to.include("5.0 MB").and.to.include(".pdf").and.to.include(".md");
    await page.locator(".document").first().waitFor(); // the seeded documents, once listed
    const before = await page.locator(".document").count();
    await page
      .locator("#upload-input")
      .setInputFiles({ name: "huge.txt", mimeType: "text/plain", buffer: Buffer.alloc(stack.config.server.UPLOAD_MAX_BYTES + 1, 97) });
    await page.locator(".messages-box", { hasText: "over the 5.0 MB limit" }).waitFor();
    await page.locator("#upload-input").setInputFiles({ name: "tool.exe", mimeType: "application/octet-stream", buffer: Buffer.from("MZ") });
    await page.locator(".messages-box", { hasText: "this type is not accepted" }).waitFor();
    expect(await page.locator(".document").count()).to.equal(before);
  });

  it("shows the organisation's stored files against its quota, and says why an upload past it was refused", async () => {
    const meter = page.locator(".storage-usage");
    await meter.waitFor();
    expect(Number(await meter.getAttribute("data-quota-bytes"))).to.equal(stack.config.organisations.ORG_STORAGE_QUOTA_BYTES);
    expect(await meter.textContent()).to.match(/Storage: .+ of 1\.0 GB used/);
    const used = Number(await meter.getAttribute("data-used-bytes"));
    const organisation = stack.server.deps.db("organizations").where({ id: DEMO_IDS.orgId });
    await organisation.clone().update({ storage_quota_bytes: used + 10 });
    try {
      const name = `over-quota-${unique()}`;
      await page.locator("#upload-input").setInputFiles({ name: `${name}.txt`, mimeType: "text/plain", buffer: Buffer.from(`A file too many ${name}.`) });
      await page.locator(".messages-box", { hasText: "document storage is full" }).waitFor();
      await page.locator(`.storage-usage[data-quota-bytes='${used + 10}']`).waitFor();
      expect(await page.locator(".document", { hasText: name }).count()).to.equal(0);
      // The browser logs the refused request itself; that one is expected.
      const refused = watched.consoleErrors.findIndex((line) => line.includes("status of 409"));
      expect(refused, "the 409 was the upload's").to.be.at.least(0);
      watched.consoleErrors.splice(refused, 1);
    } finally {
      await organisation.clone().update({ storage_quota_bytes: null });
    }
  });

  it("uploads a dropped file and shows its status move live to COMPLETED with its chunk count", async () => {
    const title = `dropped-handbook-${unique()}`;
    await watchStatuses(page, title);
    // The embedding call waits a moment, so the document is still being read when its row first shows: a whole run
    // read a short file so fast that the row's first status was COMPLETED, and nothing live was left to see.
    const row = page.locator(".document", { hasText: title });
    stack.llm.setEmbeddingDelay(1_500);
    try {
      const text = `# Dropped handbook ${unique()}\n\nStaff must badge in at the loading dock before 7am.\n\n## Breaks\n\nBreaks last fifteen minutes.`;
      // A real drop: the page's handler gets a DataTransfer holding the file.
      await page.evaluate(
        ({ name, body }) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([body], name, { type: "text/markdown" }));
          document.querySelector(".upload-zone")!.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        },
        { name: `${title}.md`, body: text },
      );
      await row.locator("[data-status='COMPLETED']").waitFor({ timeout: 30_000 });
    } finally {
      stack.llm.setEmbeddingDelay(0);
    }
    const seen = await page.evaluate(() => (window as unknown as { seenStatuses: string[] }).seenStatuses);
    expect(seen.at(-1)).to.equal("COMPLETED");
    expect(seen.length, `statuses seen live: ${seen.join(" → ")}`).to.be.greaterThan(1);
    expect(["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING"]).to.include(seen[0]);
    const chunks = Number(/(\d+) chunks/.exec((await row.locator(".doc-meta").textContent())!)![1]);
    expect(chunks).to.be.greaterThan(0);
    const stored = await stack.server.deps
      .db("documents")
      .where({ filename: `${title}.md`, org_id: DEMO_IDS.orgId })
      .first("chunk_count", "status");
    expect(stored).to.deep.include({ status: "COMPLETED", chunk_count: chunks });
  });

  it("uploads through the picker, shows a refusal and a failure with its reason and code, and deletes a document", async () => {
    // Named .pdf but not a PDF inside: refused by content, so upload answers 415 and nothing is stored.
    await page
      .locator("#upload-input")
      .setInputFiles({ name: `fake-${unique()}.pdf`, mimeType: "application/pdf", buffer: Buffer.from("this is not a pdf at all") });
    await page.locator(".messages-box", { hasText: "That file type is not accepted" }).waitFor();
    // Chromium logs every 4xx response; this one the test asked for.
    const refused = watched.consoleErrors.findIndex((line) => line.includes("status of 415"));
    expect(refused).to.be.at.least(0);
    watched.consoleErrors.splice(refused, 1);

    const empty = `empty-${unique()}`;
    await page
      .locator("#upload-input")
      .setInputFiles({ name: `${empty}.txt`, mimeType: "text/plain", buffer: Buffer.from(`   \n\n  ${" ".repeat(Math.floor(Math.random() * 50))}`) });
    const failed = page.locator(".document", { hasText: empty });
    await failed.locator("[data-status='FAILED']").waitFor({ timeout: 30_000 });
    expect(await failed.locator(".doc-error").textContent()).to.match(/\w+.*EXTRACTION_FAILED/);

    const good = `picked-${unique()}`;
    await page
      .locator("#upload-input")
      .setInputFiles({ name: `${good}.csv`, mimeType: "text/csv", buffer: Buffer.from(`product,days\nshoes ${good},30\nhats,14\n`) });
    const row = page.locator(".document", { hasText: good });
    await row.locator("[data-status='COMPLETED']").waitFor({ timeout: 30_000 });
    await row.getByRole("button", { name: `Delete ${good}` }).click();
    await row.waitFor({ state: "detached" });
    expect(
      await stack.server.deps
        .db("documents")
        .where({ filename: `${good}.csv` })
        .first(),
    ).to.equal(undefined);
  });

  it("shows a document that failed for a reason of ours (its threads cannot start) as FAILED, saying the file is fine", async () => {
    // Extraction runs on this suite's own worker: the stack's may have been started from another
    // module instance (mocha loads suites that use import.meta apart from the rest), whose thread
    // pool would not see the entry set here. Set once it has started, as its start-up probe would refuse.
    const stackExtraction = stackWorker(stack, "ingest-extract");
    await stackExtraction.pause();
    const own = await startOwnWorkers({ WORKER_QUEUES: "ingest-extract:1" });
    await useThreadEntry(new URL("../workers/ingestion/isolation/thread-fixtures/cannot-start.mjs", import.meta.url));
    try {
      const name = `fine-file-${unique()}`;
      await page.locator("#upload-input").setInputFiles({ name: `${name}.txt`, mimeType: "text/plain", buffer: Buffer.from(`A perfectly good file ${name}.`) });
      const row = page.locator(".document", { hasText: name });
      await row.locator("[data-status='FAILED']").waitFor({ timeout: 60_000 });
      const shown = (await row.locator(".doc-error").textContent())!;
      expect(shown).to.include("not a problem with the file").and.include("Try again later").and.include("INGEST_FAILED");
    } finally {
      await useThreadEntry(undefined);
      await own.close();
      stackExtraction.resume();
    }
  });

  it("runs the assistant: tool calls as cards, a proposal with Confirm that runs as a live checklist, and Resume after a partial run", async () => {
    const department = `Web Team ${unique()}`;
    const team = await addEmployees(stack, department, ["Ana Web", "Ben Web", "Cleo Web"]);
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
    expect(await page.locator(".tool-card .tool-name").first().textContent()).to.equal("assign_course");
    expect(await card.locator(".action-preview").textContent()).to.include(department);
    expect(await card.locator(".hint").first().textContent()).to.include("3 items");
    expect(await card.locator(".item-preview li").count()).to.equal(3);

    // One target changes before the confirmation: that item fails, the others run.
    await stack.server.deps.db("users").where({ id: team[1]!.id }).update({ is_active: false });
    await card.locator("button", { hasText: "Confirm" }).click();
    await card.locator(".action-status[data-status='partial']").waitFor({ timeout: 20_000 });
    // A run's end is drawn with its items: the moment the card says partial, its checklist says which item failed.
    expect(await card.locator(".checklist li[data-status='done']").count()).to.equal(2);
    expect(await card.locator(".checklist li[data-status='failed']").count()).to.equal(1);

    await stack.server.deps.db("users").where({ id: team[1]!.id }).update({ is_active: true });
    await card.locator("button", { hasText: "Resume failed items" }).click();
    await card.locator(".action-status[data-status='completed']").waitFor({ timeout: 20_000 });
    expect(await card.locator(".checklist li[data-status='done']").count()).to.equal(3);
    const enrolled = await stack.server.deps
      .db("enrollments")
      .whereIn(
        "user_id",
        team.map((t) => t.id),
      )
      .andWhere({ course_id: DEMO_IDS.courseIds.warehouseSafety });
    expect(enrolled).to.have.length(3);
    stack.llm.setResponder(null);
    if (process.env.SCREENSHOTS) {
      mkdirSync("docs/screenshots", { recursive: true });
      await page.screenshot({ path: "docs/screenshots/admin-assistant.png", fullPage: true });
    }
  });

  it("opens Bull Board signed in through a single-use code, never with the token in the URL", async () => {
    await page.getByRole("link", { name: "Documents" }).click();
    if (process.env.SCREENSHOTS) await page.screenshot({ path: "docs/screenshots/admin.png", fullPage: true });
    const board = await openPage(browser);
    try {
      await signInAs(board.page, `${stack.baseUrl}/admin`, admin.email);
      const token = (await board.page.evaluate(() => sessionStorage.getItem("skillnet.token")))!;
      const urls: string[] = [];
      board.page.on("request", (request) => urls.push(request.url()));
      await board.page.getByRole("button", { name: "Queues (Bull Board)" }).click();
      await board.page.waitForURL(/\/admin\/queues$/, { timeout: 15_000 });
      // Let the board finish loading its assets, so closing the page aborts no response mid-stream.
      await board.page.waitForLoadState("networkidle");
      expect(urls.some((u) => u.includes("/admin/queues?code="))).to.equal(true);
      expect(urls.every((u) => !u.includes(token))).to.equal(true);
      expect(await board.page.title()).to.match(/queues/i);
    } finally {
      await board.context.close();
    }
  });

  it("fits a 360 px phone without horizontal scrolling", async () => {
    const phone = await openPage(browser, { width: 360, height: 740 });
    try {
      await signInAs(phone.page, `${stack.baseUrl}/admin`, admin.email);
      await phone.page.locator(".document").first().waitFor();
      expect(await phone.page.evaluate(() => document.scrollingElement!.scrollWidth)).to.be.at.most(360);
      await phone.page.getByRole("link", { name: "Assistant" }).click();
      await phone.page.locator(".action-card, .empty").first().waitFor();
      expect(await phone.page.evaluate(() => document.scrollingElement!.scrollWidth)).to.be.at.most(360);
      expect(phone.consoleErrors).to.deep.equal([]);
    } finally {
      await phone.context.close();
    }
  });
});
