/**
 * The admin console looks like one product (issue 31, point 8), in real Chromium against the real
 * stack: every column page (Documents, Content gaps, Usage, People) is one centred column, the same width
 * at the same place, with equal margins — on a desktop and on a phone — and the feedback buttons
 * are drawn as SVG with a real size, not emoji that a machine without an emoji font shows as boxes.
 * `npm run screenshots` saves what it checks under docs/screenshots.
 */
import { mkdirSync } from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { useStack, type Stack } from "../support/stack";
import { cleanUp, freshUser } from "../workers/admin/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

declare const document: any;

const PAGES = [
  { hash: "documents", label: "Documents" },
  { hash: "gaps", label: "Content gaps" },
  { hash: "usage", label: "AI usage" },
  { hash: "people", label: "People" },
] as const;

/** The page's main column and the window's width, once the page is on screen. */
async function column(page: Page, label: string): Promise<{ x: number; width: number; right: number; viewport: number }> {
  const main = page.locator(`main.console-page[aria-label="${label}"]`);
  await main.waitFor();
  const box = await main.boundingBox();
  if (!box) throw new Error(`${label}: the page's main column has no box`);
  const viewport = await page.evaluate(() => document.documentElement.clientWidth as number);
  return { x: box.x, width: box.width, right: viewport - (box.x + box.width), viewport };
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.SCREENSHOTS) return;
  mkdirSync("docs/screenshots", { recursive: true });
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
}

describe("web: the console pages share one layout, and icons need no font", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
  });
  afterEach(() => watched?.context.close());
  after(async () => {
    await browser?.close();
    await cleanUp(stack);
  });

  for (const viewport of [
    { width: 1280, height: 860, name: "desktop" },
    { width: 360, height: 740, name: "phone" },
  ]) {
    it(`centres every column page in the same column on a ${viewport.name}, with equal margins`, async () => {
      const admin = await freshUser(stack, { role: "admin" });
      watched = await openPage(browser, { width: viewport.width, height: viewport.height });
      const { page } = watched;
      await signInWithToken(page, stack.baseUrl, admin.token, "/admin#documents");
      const columns = [];
      for (const { hash, label } of PAGES) {
        await page.goto(`${stack.baseUrl}/admin#${hash}`);
        const placed = await column(page, label);
        expect(Math.abs(placed.x - placed.right), `${label}: left ${placed.x}px, right ${placed.right}px`).to.be.at.most(1);
        expect(placed.width, `${label} fills no more than the window`).to.be.at.most(placed.viewport);
        if (viewport.name === "desktop") expect(placed.x, `${label} sits away from the left edge`).to.be.greaterThan(50);
        columns.push(placed);
        if (viewport.name === "desktop") await screenshot(page, `admin-${hash}`);
      }
      for (const placed of columns.slice(1)) {
        expect(placed.x).to.be.closeTo(columns[0]!.x, 1);
        expect(placed.width).to.be.closeTo(columns[0]!.width, 1);
      }
      expect(watched.consoleErrors).to.deep.equal([]);
    });
  }

  it("draws the feedback buttons as SVG icons of a real size, with no emoji in them", async () => {
    const employee = await freshUser(stack);
    watched = await openPage(browser);
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, employee.token);
    const input = page.getByLabel("Message", { exact: true });
    await input.fill("How many days do customers have to return an item?");
    await input.press("Enter");
    const feedback = page.locator("li.msg.assistant .feedback").last();
    await feedback.waitFor({ timeout: 30_000 });
    for (const name of ["Helpful", "Not helpful"]) {
      const button = feedback.getByRole("button", { name, exact: true });
      const icon = button.locator("svg.icon");
      expect(await icon.count(), `${name}: one SVG icon`).to.equal(1);
      const box = await icon.boundingBox();
      expect(box?.width, `${name}: icon width`).to.be.greaterThan(8);
      expect(box?.height, `${name}: icon height`).to.be.greaterThan(8);
      expect(await icon.evaluate((svg: any) => svg.querySelectorAll("path").length), `${name}: the icon draws something`).to.be.greaterThan(0);
      // The only text is the screen reader's label: no emoji glyph left to fall back to a box.
      expect((await button.textContent())?.trim()).to.equal(name);
    }
    await screenshot(page, "feedback-icons");
    expect(watched.consoleErrors).to.deep.equal([]);
  });
});
