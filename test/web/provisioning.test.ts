/**
 * The console's Provisioning page in real Chromium against the real stack: rotating the SCIM
 * token shows the new one once (and the old one gets 401 from /scim/v2 at once), a reload shows
 * only its hint, and choosing what a provisioned group means gives its members the admin role.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { useStack, type Stack } from "../support/stack";
import { dropOrganisations } from "../support/organizations";
import { GROUP_SCHEMA, USER_SCHEMA, scim, scimOrganisation, type ScimOrg } from "../server/routes/scim/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

describe("web: the Provisioning page (SCIM) in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let org: ScimOrg;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    org = await scimOrganisation(stack, "web");
    watched = await openPage(browser);
  });
  after(async () => {
    await watched?.context.close();
    await browser?.close();
    await dropOrganisations(stack.server.deps.db, [org?.orgId]);
  });

  it("rotates the token, shows the new one once, and maps a group to the admin role", async () => {
    const { page } = watched;
    const person = await scim(stack.baseUrl, org.scimToken, "POST", "/Users", {
      schemas: [USER_SCHEMA],
      userName: `lead@${org.domain}`,
      name: { formatted: "Lead" },
    });
    await scim(stack.baseUrl, org.scimToken, "POST", "/Groups", {
      schemas: [GROUP_SCHEMA],
      displayName: "Console Admins",
      members: [{ value: person.body.id }],
    });

    await signInWithToken(page, stack.baseUrl, org.adminToken, "/admin#provisioning");
    const main = page.getByRole("main", { name: "Provisioning" });
    expect(await main.getByLabel("SCIM base URL").inputValue()).to.equal(`${stack.baseUrl}/scim/v2`);
    await main.getByText(`A token ending in ${org.scimToken.slice(-4)} exists`).waitFor();

    await main.getByRole("button", { name: "Rotate token" }).click();
    await main.getByRole("button", { name: "Rotate now" }).click();
    const shown = main.getByLabel("New SCIM token");
    await shown.waitFor();
    const fresh = await shown.inputValue();
    expect(fresh).to.match(/^scim_/);
    expect(fresh).to.not.equal(org.scimToken);
    await main.getByText("The previous token no longer works.").waitFor();
    await main.getByText(`A token ending in ${fresh.slice(-4)} exists`).waitFor();

    expect((await scim(stack.baseUrl, org.scimToken, "GET", "/Users")).status, "the old token").to.equal(401);
    expect((await scim(stack.baseUrl, fresh, "GET", "/Users")).status, "the new token").to.equal(200);

    await page.reload();
    await main.getByText(`A token ending in ${fresh.slice(-4)} exists`).waitFor();
    expect(await main.getByLabel("New SCIM token").count(), "shown once").to.equal(0);
    expect(await page.content()).to.not.include(fresh);

    await main.getByLabel("What Console Admins gives its members").selectOption("admin");
    const deadline = Date.now() + 5_000;
    let role = "";
    while (Date.now() < deadline && role !== "admin") {
      role = (await stack.server.deps.db("users").where({ id: person.body.id }).first("role")).role;
      if (role !== "admin") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(role).to.equal("admin");
    expect(watched.consoleErrors, "no page errors").to.deep.equal([]);
  });
});
