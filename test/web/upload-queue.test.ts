/**
 * The admin console's upload queue in Chromium against the real stack: files past the server's
 * per-admin upload limit wait for its Retry-After and are sent, every one; after a reload the
 * files already sent stay done and the unsent ones are named for choosing again, and choosing
 * the same files again sends only those. The limit is reached for real: the test fills the
 * admin's window in Redis the way earlier uploads would, so the server itself refuses.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { cleanUp, freshUser, unique, type Person } from "../workers/admin/helpers";
import { useStack, type Stack } from "../support/stack";
import { launchBrowser, openPage, signInAs, type WatchedPage } from "./browser";

declare const document: any, DataTransfer: any, DragEvent: any, File: any;

describe("web: the admin console's upload queue", function () {
  this.timeout(120_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let admin: Person;
  let windowKey: string;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    admin = await freshUser(stack, { role: "admin", name: `Quinn Queue ${unique()}` });
    windowKey = `skillnet:rate-window:upload:user:${admin.id}`;
    watched = await openPage(browser);
    page = watched.page;
    await signInAs(page, `${stack.baseUrl}/admin`, admin.email);
  });

  after(async () => {
    await browser?.close();
    await stack.server.deps.redis.del(windowKey);
    await stack.server.deps.db("documents").where({ uploaded_by: admin.id }).delete();
    await cleanUp(stack);
  });

  /**
   * Fills the admin's upload window as if they had just uploaded: `free` slots left now, and
   * the window reopening `reopensInMs` from now (the limiter's counter for the window, with its expiry).
   */
  async function fillUploadWindow(free: number, reopensInMs: number): Promise<void> {
    const taken = stack.config.rateLimits.RATE_LIMIT_UPLOADS_PER_MINUTE - free;
    await stack.server.deps.redis.set(windowKey, taken, "PX", reopensInMs);
  }

  /** Drops files made in the page, with fixed lastModified so "the same file" can be dropped again after a reload. */
  async function drop(files: Array<{ name: string; body: string }>): Promise<void> {
    await page.evaluate(
      ({ files }) => {
        const transfer = new DataTransfer();
        for (const f of files) transfer.items.add(new File([f.body], f.name, { type: "text/plain", lastModified: 1_700_000_000_000 }));
        document.querySelector(".upload-zone").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      { files },
    );
  }

  const counts = async (): Promise<Record<string, number>> => {
    const element = page.locator(".queue-counts");
    const read = async (name: string) => Number(await element.getAttribute(`data-${name}`));
    return { waiting: await read("waiting"), uploading: await read("uploading"), done: await read("done"), failed: await read("failed") };
  };
  const waitForDone = (n: number, timeout = 60_000) => page.locator(`.queue-counts[data-done="${n}"]`).waitFor({ timeout });
  /** Chromium logs each refused request as a console error; these were the server's limit at work. */
  const forgetRefusals = () => {
    const kept = watched.consoleErrors.filter((line) => !line.includes("status of 429"));
    watched.consoleErrors.splice(0, watched.consoleErrors.length, ...kept);
  };

  const textFiles = (prefix: string, n: number) => {
    const tag = unique();
    return Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${tag}-${i}.txt`, body: `Page ${i} of ${prefix} about crate ${tag}${i}.` }));
  };
  async function allCompleted(files: Array<{ name: string }>): Promise<void> {
    for (const file of files)
      await page
        .locator(".document", { hasText: file.name.replace(/\.txt$/, "") })
        .locator("[data-status='COMPLETED']")
        .waitFor({ timeout: 30_000 });
    forgetRefusals();
    expect(watched.consoleErrors).to.deep.equal([]);
  }

  it("waits out the server's limit (Retry-After) and sends every file", async () => {
    const files = textFiles("queued", 8);
    await fillUploadWindow(3, 3_000);
    await drop(files);
    // Three fit in the window; the fourth is refused, and the queue says it is waiting for the limit.
    await page.locator(".queue-paused").waitFor({ timeout: 15_000 });
    const paused = await counts();
    expect(paused.done).to.equal(3);
    expect(paused.waiting).to.equal(5);
    await waitForDone(8);
    expect((await counts()).failed).to.equal(0);
    await allCompleted(files);
    await page.getByRole("button", { name: "Clear this list" }).click();
    await page.locator(".upload-queue").waitFor({ state: "detached" });
  });

  it("after a reload keeps what was sent, names what must be chosen again, and sends only those", async () => {
    const files = textFiles("reload", 7);
    await fillUploadWindow(2, 30_000);
    await drop(files);
    await page.locator(".queue-paused").waitFor({ timeout: 15_000 });
    expect(await counts()).to.include({ done: 2, waiting: 5 });

    await page.reload();
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
    const reselect = page.locator(".queue-reselect");
    await reselect.waitFor();
    expect(await reselect.getAttribute("data-reselect")).to.equal("5");
    const named = (await reselect.textContent())!;
    expect(named).to.include("not sent before the page was reloaded");
    for (const file of files.slice(2)) expect(named).to.include(file.name);
    for (const file of files.slice(0, 2)) expect(named).to.not.include(file.name);
    expect(await counts()).to.include({ done: 2, waiting: 0 });

    // The limit is lifted; the admin drops the same seven files again: only the five unsent go.
    await stack.server.deps.redis.del(windowKey);
    const uploadsBefore = await stack.server.deps.db("documents").where({ uploaded_by: admin.id }).count<{ count: string }[]>({ count: "*" });
    await drop(files);
    await page.locator(".messages-box", { hasText: "2 files were already uploaded from this browser: skipped." }).waitFor();
    await waitForDone(7);
    await reselect.waitFor({ state: "detached" });
    const uploadsAfter = await stack.server.deps.db("documents").where({ uploaded_by: admin.id }).count<{ count: string }[]>({ count: "*" });
    expect(Number(uploadsAfter[0]!.count) - Number(uploadsBefore[0]!.count)).to.equal(5);
    await allCompleted(files);
  });
});
