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
import { api } from "../harness/client";
import { addEmployees, cleanUp, freshUser } from "../workers/admin/helpers";
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

  it("draws the console in German at 1280 px: grouped navigation on screen, no header, name or link broken inside a word", async () => {
    const admin = await freshUser(stack, { role: "admin" });
    // The admin's own choice, saved as the page's switch saves it; the browser itself is English.
    expect((await api(stack.baseUrl, "PATCH", "/api/v1/me", { token: admin.token, body: { page_locale: "de" } })).status).to.equal(200);
    const department = "Qualitätssicherung und Prozessoptimierung";
    await addEmployees(stack, department, ["Maximiliane Schwarzenberger-Hohenlohe", "Bartholomäus Oberländer-Wittgenstein"]);
    watched = await openPage(browser, { width: 1280, height: 860 });
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin#people");
    await page.getByRole("link", { name: "Personen", exact: true }).waitFor();
    await page.locator("input[type=search]").fill("Maximiliane");
    await page.locator(".people-table tbody tr", { hasText: "Schwarzenberger" }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).to.equal("de");
    expect(await page.locator(".tab-group-name").allTextContents()).to.deep.equal(["Lernen", "Inhalte", "Betrieb", "Personen und Zugang"]);
    expect(await page.getByRole("columnheader").allTextContents()).to.include.members(["Herkunft", "Letzte Anmeldung", "Abteilung"]);

    // tsx keeps function names with a `__name` helper the page does not have: give it one.
    await page.evaluate("globalThis.__name = (fn) => fn");
    const layout = await page.evaluate(() => {
      /** Words of an element that the browser drew on more than one line (a break inside the word). */
      const brokenWords = (element: any): string[] => {
        const broken: string[] = [];
        const walker = document.createTreeWalker(element, 4);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          // A word, or one part of a hyphenated one: a line may break after a hyphen, never inside a part.
          for (const match of (node.textContent as string).matchAll(/[^\s-]+-?/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set([...range.getClientRects()].map((rect: any) => Math.round(rect.top)));
            if (lines.size > 1) broken.push(match[0]);
          }
        }
        return broken;
      };
      const nav = document.querySelector("nav.tabs");
      const items = [...nav.querySelectorAll("a, button, .tab-group-name")];
      return {
        viewport: document.documentElement.clientWidth,
        pageWidth: document.documentElement.scrollWidth,
        navOverflow: nav.scrollWidth - nav.clientWidth,
        navItemsOff: items
          .filter((item: any) => item.getBoundingClientRect().right > document.documentElement.clientWidth)
          .map((item: any) => item.textContent),
        navItemsWrapped: items
          .filter((item: any) => item.getClientRects().length > 1 || item.getBoundingClientRect().height > 40)
          .map((item: any) => item.textContent),
        navHeight: nav.getBoundingClientRect().height,
        linkHeight: nav.querySelector("a").getBoundingClientRect().height,
        brokenHeaders: [...document.querySelectorAll(".people-table th")].flatMap(brokenWords),
        brokenNames: [
          ...document.querySelectorAll(".people-table .person-name, .people-table td[data-label='Department'], .people-table td[data-label='Active']"),
        ].flatMap(brokenWords),
        tableOverflow:
          document.querySelector(".people-table").getBoundingClientRect().right - document.querySelector("main.console-page").getBoundingClientRect().right,
      };
    });
    expect(layout.pageWidth, "no horizontal scrolling").to.be.at.most(layout.viewport);
    expect(layout.navOverflow, "the navigation fits its bar").to.be.at.most(0);
    expect(layout.navItemsOff, "every section is on screen").to.deep.equal([]);
    expect(layout.navItemsWrapped, "no section name breaks across lines").to.deep.equal([]);
    expect(layout.navHeight, "four groups and the way back to the tutor in at most two rows").to.be.below(3 * layout.linkHeight + 24);
    expect(layout.brokenHeaders, "headers").to.deep.equal([]);
    expect(layout.brokenNames, "names, departments and states").to.deep.equal([]);
    expect(layout.tableOverflow, "the table stays in its column").to.be.at.most(1);
    await screenshot(page, "admin-people-de");
    expect(watched.consoleErrors).to.deep.equal([]);
  });

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
