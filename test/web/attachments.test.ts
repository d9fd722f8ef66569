/**
 * An employee attaches files to a question in the tutor, in real Chromium against the real stack
 * (the offline model's extractive answers): a text file goes up from the paperclip, its chip
 * moves from processing to ready as the worker reads it, the question sent with it is answered
 * from it and cites it by its file name (the citation opens the file's passage); a file that
 * cannot be read shows failed with the reason, and removing its chip deletes it on the server.
 * The answer's badge and its source say the file is the employee's own, not company material;
 * the question shows the file it went with, and still does once the page is reloaded and the
 * conversation opened again (from the stored history, with the answer's badge as it was). An
 * answer citing both a file and company material says both, on the badge and on each source.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { useStack, type Stack } from "../support/stack";
import { promptOf, scriptedResponder } from "../workers/tutor/helpers";
import { launchBrowser, openPage, signInAs, type WatchedPage } from "./browser";

declare const document: any;

const NOTE = [
  "Bicycle cage",
  "",
  "The bicycle cage in the basement opens with the code 4711.",
  "The cage code changes on the first Monday of every month.",
].join("\n");

const LOCKERS = ["Lockers", "", "Lockers on floor two are emptied every Friday at six."].join("\n");

describe("web: attaching a file to a question in the tutor", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    stack.llm.reset();
    watched = await openPage(browser);
    page = watched.page;
    await signInAs(page, stack.baseUrl, "employee@example.com");
  });

  after(async () => {
    stack.llm.reset();
    await browser?.close();
  });

  it("reads the attached file, answers from it and cites it as the employee's own file, shown under the question before and after a reload; an unreadable file shows failed and its remove deletes it; a mixed answer names both", async () => {
    const chips = page.locator(".attachment-chip");
    await page.locator(".attach-file input[type=file]").setInputFiles({ name: "bicycle-cage.txt", mimeType: "text/plain", buffer: Buffer.from(NOTE) });
    await page.locator('.attachment-chip[data-status="ready"]').waitFor({ timeout: 30_000 });
    expect(await chips.first().locator(".attachment-name").textContent()).to.equal("bicycle-cage.txt");

    const input = page.getByLabel("Message", { exact: true });
    await input.fill("What is the code of the bicycle cage?");
    await input.press("Enter");
    await page.waitForFunction(
      () => {
        const last = [...document.querySelectorAll("li.msg.assistant")].at(-1);
        return last !== undefined && last.getAttribute("aria-busy") === "false";
      },
      undefined,
      { timeout: 30_000 },
    );
    const answer = page.locator("li.msg.assistant").last();
    expect(await answer.locator(".answer-text").textContent()).to.include("4711");
    expect(await answer.locator(".citations").textContent()).to.include("bicycle-cage.txt");
    const fileBadgeAndSource = async (where: string) => {
      const stored = page.locator("li.msg.assistant").last();
      const badge = stored.locator(".answer-head .badge");
      expect(await badge.getAttribute("data-origin"), where).to.equal("file");
      expect(await badge.textContent(), where).to.equal("from your file");
      const cited = stored.locator(".citations li", { hasText: "bicycle-cage.txt" }).first();
      expect(await cited.locator(".source-origin").textContent(), where).to.include("your file");
      expect(await stored.locator(".citations").textContent(), `${where}: no company material was cited`).to.not.include("company material");
    };
    await fileBadgeAndSource("the live answer");
    const sentFile = async (where: string) => {
      const question = page.locator("li.msg.user").last();
      expect(await question.locator(".user-text").textContent(), where).to.equal("What is the code of the bicycle cage?");
      const files = question.locator(".sent-file");
      expect(await files.count(), where).to.equal(1);
      expect(await files.first().getAttribute("data-status"), where).to.equal("ready");
      expect(await files.first().locator(".sent-file-name").textContent(), where).to.equal("bicycle-cage.txt");
      expect(await files.first().locator(".sent-file-size").textContent(), where).to.equal(`${Buffer.byteLength(NOTE)} B`);
    };
    await sentFile("as sent");
    // The citation opens the passage of the file the tutor was given.
    await answer.locator(".answer-text a.cite-marker").first().click();
    await page.locator(".passage .passage-text").waitFor({ timeout: 10_000 });
    expect(await page.locator(".passage .passage-text").textContent()).to.include("4711");
    expect(await page.locator(".passage .open-original").count(), "no original document to open").to.equal(0);
    expect(await chips.count(), "sent: the box is empty again").to.equal(0);

    const broken = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(2048, 0xff)]);
    await page.locator(".attach-file input[type=file]").setInputFiles({ name: "minutes.doc", mimeType: "application/msword", buffer: broken });
    const failed = page.locator('.attachment-chip[data-status="failed"]');
    await failed.waitFor({ timeout: 30_000 });
    expect(await failed.locator(".attachment-state").textContent()).to.match(/^failed: .*not a Word 97–2003 file/);
    // Removing the chip deletes the file on the server, not only on the page.
    const deleted = page.waitForResponse((response) => response.request().method() === "DELETE" && response.url().includes("/api/v1/chat/attachments/"));
    await failed.getByRole("button").click();
    expect((await deleted).status(), "the file is deleted").to.equal(204);
    expect(await chips.count(), "removed: the box is empty again").to.equal(0);

    // Reloaded and opened again, the conversation shows the file under its question (the removed one nowhere).
    await page.reload();
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
    await page.locator('.session-open[title="bicycle-cage.txt"]').first().click();
    await page.locator("li.msg.user .sent-file").waitFor({ timeout: 10_000 });
    await sentFile("reloaded");
    await fileBadgeAndSource("the stored answer");
    expect(await page.locator(".sent-file", { hasText: "minutes.doc" }).count(), "the removed file was never sent").to.equal(0);

    // A file and company material cited in one answer: the badge and each source say whose it is.
    stack.llm.setResponder(
      scriptedResponder({
        generation: (request) => {
          const labels = [...promptOf(request).matchAll(/^\[(\d+)\] (.*)$/gm)];
          const file = labels.find((label) => label[2]!.includes("lockers.txt"))?.[1];
          const company = labels.find((label) => label[2]!.includes("Returns Policy"))?.[1];
          return file && company ? `Lockers are emptied every Friday [${file}]. Customers have 30 days to return an item [${company}].` : undefined;
        },
      }),
    );
    await page.locator(".attach-file input[type=file]").setInputFiles({ name: "lockers.txt", mimeType: "text/plain", buffer: Buffer.from(LOCKERS) });
    await page.locator('.attachment-chip[data-status="ready"]').waitFor({ timeout: 30_000 });
    const answers = await page.locator("li.msg.assistant").count();
    await input.fill("When are the lockers emptied, and how many days do customers have to return an item?");
    await input.press("Enter");
    await page.waitForFunction(
      (count: number) => {
        const all = [...document.querySelectorAll("li.msg.assistant")];
        return all.length > count && all.at(-1).getAttribute("aria-busy") === "false";
      },
      answers,
      { timeout: 30_000 },
    );
    const mixed = page.locator("li.msg.assistant").last();
    expect(await mixed.locator(".answer-text").textContent()).to.include("30 days");
    expect(await mixed.locator(".answer-head .badge").getAttribute("data-origin")).to.equal("mixed");
    expect(await mixed.locator(".answer-head .badge").textContent()).to.equal("your file + company source");
    expect(await mixed.locator(".citations li", { hasText: "lockers.txt" }).locator(".source-origin").textContent()).to.include("your file");
    expect(await mixed.locator(".citations li", { hasText: "Returns Policy" }).first().locator(".source-origin").textContent()).to.include("company material");
    expect(await page.locator("li.msg.user").last().locator(".sent-file-name").allTextContents()).to.deep.equal(["lockers.txt"]);
    expect(watched.consoleErrors, "console errors").to.deep.equal([]);
  });
});
