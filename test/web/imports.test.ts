/**
 * The console's Imports page in real Chromium against the real stack: an import an integration
 * sends appears and moves to its result without a reload (the admin's socket), its refused
 * records show with their line and reason, and a re-run of the same file says nothing changed;
 * refused records past the ones kept are shown as "and N more". Another organisation's admin sees
 * none of it.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { IMPORT_PROBLEMS_KEPT } from "../../lib/catalog-import-problems";
import { api } from "../harness/client";
import { realisticCatalog } from "../harness/catalog-fixture";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../workers/admin/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

describe("web: the Imports page in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  let key: string;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    orgA = await freshOrganisation(stack, "Imports web A");
    orgB = await freshOrganisation(stack, "Imports web B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    key = (
      await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token: adminA.token, body: { name: "Moodle sync", scopes: ["catalog:write"] } })
    ).body.key;
    watched = await openPage(browser);
  });
  after(async () => {
    await watched?.context.close();
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgA, orgB]);
  });

  const send = async (body: string) => {
    const response = await fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
      body,
    });
    expect(response.status).to.equal(202);
    return ((await response.json()) as { import: { id: string } }).import.id;
  };

  it("shows an import live, its refused records by line, and a re-run that changed nothing", async () => {
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, adminA.token, "/admin#imports");
    const main = page.getByRole("main", { name: "Imports" });
    await main.getByText("No import yet").waitFor();

    const { lines } = realisticCatalog("web-imports", { courses: 3, modulesPerCourse: 2, lessonsPerModule: 5, people: 0, enrolmentsPerPerson: 0 });
    const file = [
      ...lines,
      JSON.stringify({ type: "lesson", external_id: "orphan", module: "no-such-module", title: "Orphan", content: "x", position: 1 }),
    ].join("\n");
    await send(file);
    const row = main.locator("tr[data-import]").first();
    await row.getByText("Completed").waitFor({ timeout: 30_000 });
    await row.getByText(/created, 0 updated, 0 unchanged, 0 deleted, 1 refused/).waitFor();
    expect(await row.getByRole("cell", { name: "Moodle sync" }).count()).to.equal(1);

    await row.getByRole("button", { name: "Refused records" }).click();
    const problems = main.getByRole("table", { name: "Refused records" });
    await problems.waitFor();
    const cells = await problems.locator("tbody tr").first().locator("td").allTextContents();
    expect(cells[0]).to.equal(String(lines.length + 1));
    expect(cells[1]).to.equal("UNKNOWN_REFERENCE");
    expect(cells[2]).to.include('module "no-such-module"');

    await send(file);
    await main.getByText(/Nothing changed: all \d+ records were already so; 1 refused/).waitFor({ timeout: 30_000 });
    expect(await main.locator("tr[data-import]").count()).to.equal(2);

    await signInWithToken(page, stack.baseUrl, adminB.token, "/admin#imports");
    await page.getByRole("main", { name: "Imports" }).getByText("No import yet").waitFor();
  });

  it("an import with more refused records than are kept says how many more, per code", async () => {
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, adminA.token, "/admin#imports");
    const main = page.getByRole("main", { name: "Imports" });
    // This import's own row: the page may still list only the earlier test's imports when the post returns.
    const id = await send("x\n".repeat(IMPORT_PROBLEMS_KEPT + 25));
    const row = main.locator(`tr[data-import="${id}"]`);
    await row.getByText("Completed").waitFor({ timeout: 30_000 });
    await row.getByRole("button", { name: "Refused records" }).click();
    await main.getByText(/and 25 more refused records, counted but not kept \(INVALID_JSON 25\)/).waitFor();
    expect(await main.getByRole("table", { name: "Refused records" }).locator("tbody tr").count()).to.equal(100);
  });
});
