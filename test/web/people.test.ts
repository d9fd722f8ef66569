/**
 * The console's people page in real Chromium against the real stack, in an organisation of its
 * own: the badge of how each person arrived, a search that narrows the list as one types, a
 * filter, adding a person, deactivating one only after the confirm step, and a phone width.
 */
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { cleanUp, freshUser, unique, type Person } from "../workers/admin/helpers";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

declare const document: any;

describe("web: the people page of the admin console", function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let orgId: string;
  let admin: Person;
  const emails = { carla: `carla-${unique()}@example.com`, jonas: `jonas-${unique()}@example.com`, sam: `sam-${unique()}@example.com` };
  const row = (email: string) => page.locator(`tr.person[data-email="${email}"]`);

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    orgId = await freshOrganisation(stack, "People page");
    admin = await freshUser(stack, { role: "admin", orgId, name: "Ada Admin" });
    await stack.server.deps.db("users").insert([
      { org_id: orgId, email: emails.carla, name: "Carla Scim", role: "employee", department: "Sales", provisioned_via: "scim" },
      { org_id: orgId, email: emails.jonas, name: "Jonas Jit", role: "employee", department: "Warehouse", provisioned_via: "jit" },
      { org_id: orgId, email: emails.sam, name: "Sam Seed", role: "employee", department: "Sales", provisioned_via: "seed" },
    ]);
    watched = await openPage(browser);
    page = watched.page;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin#people");
    await page.locator('main.console-page[aria-label="People"]').waitFor();
  });

  after(async () => {
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  afterEach(() => {
    expect(watched.consoleErrors, "console errors").to.deep.equal([]);
    expect(watched.dialogs, "no browser dialogs: the confirm step is in the page").to.deep.equal([]);
  });

  it("shows everyone with a badge of how they arrived, and narrows by arrival", async () => {
    await row(emails.sam).waitFor();
    expect(await page.locator("tr.person").count()).to.equal(4);
    expect(await row(emails.carla).locator("[data-via]").textContent()).to.equal("SCIM");
    expect(await row(emails.jonas).locator("[data-via]").textContent()).to.equal("JIT");
    expect(await row(emails.sam).locator("[data-via]").textContent()).to.equal("Seed");
    await page.getByLabel("Arrived via").selectOption("scim");
    await page.waitForFunction(() => document.querySelectorAll("tr.person").length === 1);
    expect(await page.locator("tr.person .person-name").textContent()).to.equal("Carla Scim");
    await page.getByLabel("Arrived via").selectOption("");
    await page.waitForFunction(() => document.querySelectorAll("tr.person").length === 4);
  });

  it("finds a person as the admin types, and says so when no one matches", async () => {
    const search = page.getByRole("searchbox");
    await search.fill("JONAS");
    await page.waitForFunction(() => document.querySelectorAll("tr.person").length === 1);
    expect(await page.locator("tr.person .person-name").textContent()).to.equal("Jonas Jit");
    await search.fill("nobody-is-called-this");
    await page.locator(".people-empty", { hasText: "No one matches" }).waitFor();
    await search.fill("");
    await page.waitForFunction(() => document.querySelectorAll("tr.person").length === 4);
  });

  it("adds a person, who arrives via the API", async () => {
    const email = `nina-${unique()}@example.com`;
    await page.getByRole("button", { name: "Add person" }).click();
    const form = page.getByRole("form", { name: "Add a person" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Name").fill("Nina New");
    await form.getByLabel("Department").fill("Support");
    await form.getByRole("button", { name: "Add", exact: true }).click();
    await row(email).waitFor();
    expect(await row(email).locator("[data-via]").textContent()).to.equal("API");
    await page.locator(".people-status", { hasText: "Nina New was added" }).waitFor();
    const stored = await stack.server.deps.db("users").where({ email }).first("org_id", "provisioned_via", "department");
    expect(stored).to.deep.equal({ org_id: orgId, provisioned_via: "api", department: "Support" });
  });

  it("deactivates a person only once the confirm step is confirmed", async () => {
    await row(emails.sam).getByRole("button", { name: "Deactivate Sam Seed" }).click();
    const step = row(emails.sam).getByRole("group", { name: "Confirm the change to Sam Seed" });
    await step.waitFor();
    expect(await step.textContent()).to.include("signed out everywhere");
    const before = await stack.server.deps.db("users").where({ email: emails.sam }).first("is_active");
    expect(before.is_active, "nothing is sent before the confirm").to.equal(true);
    await step.getByRole("button", { name: "Confirm" }).click();
    await row(emails.sam).locator('td[data-active="false"]').waitFor();
    expect(await row(emails.sam).getByRole("button", { name: "Reactivate Sam Seed" }).count()).to.equal(1);
    const after = await stack.server.deps.db("users").where({ email: emails.sam }).first("is_active");
    expect(after.is_active).to.equal(false);
    expect(
      await row(admin.email)
        .getByRole("button", { name: /Deactivate/ })
        .count(),
      "an admin is not offered to deactivate themselves",
    ).to.equal(0);
  });

  it("fits a phone: one card per person, nothing wider than the screen", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await row(emails.carla).waitFor();
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth as number,
      client: document.documentElement.clientWidth as number,
    }));
    expect(widths.scroll, "no sideways scrolling").to.be.at.most(widths.client);
    const card = await row(emails.carla).boundingBox();
    expect(card!.width).to.be.at.most(360);
    expect(await page.locator(".people-table thead").isVisible()).to.equal(false);
  });
});
