/**
 * The console's Integration keys page in real Chromium against the real stack: an admin creates a
 * key with a scope and an expiry date, sees it once (with "you will not see it again"), a reload
 * shows only its hint; the key reads the organisation's people (200) until it is revoked in the
 * page after a confirmation, then gets 401. Another organisation's admin never sees it.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { api } from "../harness/client";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../workers/admin/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

describe("web: the Integration keys page in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  const people = (key: string) => api(stack.baseUrl, "GET", "/api/v1/integrations/people", { token: key });

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    orgA = await freshOrganisation(stack, "Keys page A");
    orgB = await freshOrganisation(stack, "Keys page B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    watched = await openPage(browser);
  });
  after(async () => {
    await watched?.context.close();
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgA, orgB]);
  });

  it("creates a key shown once, which reads people until it is revoked in the page", async () => {
    const { page } = watched;
    await signInWithToken(page, stack.baseUrl, adminA.token, "/admin#integration-keys");
    const main = page.getByRole("main", { name: "Integration keys" });
    await main.getByText("No keys yet.").waitFor();

    const create = main.getByRole("button", { name: "Create key" });
    expect(await create.isDisabled(), "no scope chosen yet").to.equal(true);
    await main.getByRole("textbox", { name: "Name" }).fill("HR export");
    await main.getByRole("checkbox", { name: /people:read/ }).check();
    const nextYear = `${new Date().getUTCFullYear() + 1}-06-30`;
    await main.getByLabel("Expires (optional)").fill(nextYear);
    await create.click();

    const shown = main.getByLabel("New integration key");
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).to.match(/^skn_/);
    await main.getByText("you will not see it again").waitFor();
    expect(await main.getByRole("button", { name: "Copy" }).count()).to.equal(1);
    const row = main.getByRole("row", { name: /HR export/ });
    await row.getByText(`…${key.slice(-4)}`).waitFor();
    expect(await row.textContent())
      .to.include("people:read")
      .and.include("Active");

    const stored = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminA.token });
    const listed = stored.body.integration_keys.find((k: { name: string }) => k.name === "HR export");
    expect(listed.scopes).to.deep.equal(["people:read"]);
    expect(new Date(listed.expires_at).getFullYear(), "the expiry date chosen").to.equal(new Date().getUTCFullYear() + 1);

    const read = await people(key);
    expect(read.status).to.equal(200);
    expect(read.body.people.map((p: { email: string }) => p.email)).to.include(adminA.email);

    await page.reload();
    await main.getByRole("row", { name: /HR export/ }).waitFor();
    expect(await main.getByLabel("New integration key").count(), "shown once").to.equal(0);
    expect(await page.content()).to.not.include(key);

    // B's admin lists B's keys only, and cannot revoke A's.
    const ofB = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminB.token });
    expect(ofB.body.integration_keys).to.deep.equal([]);
    expect((await api(stack.baseUrl, "DELETE", `/api/v1/admin/integration-keys/${listed.id}`, { token: adminB.token })).status).to.equal(404);
    expect((await people(key)).status, "still works after B's attempt").to.equal(200);

    await main.getByRole("button", { name: "Revoke HR export" }).click();
    await main.getByRole("group", { name: "Revoke HR export?" }).getByText("Requests with it are refused at once.").waitFor();
    expect((await people(key)).status, "asking is not revoking").to.equal(200);
    await main.getByRole("button", { name: "Revoke now" }).click();
    await main
      .getByRole("row", { name: /HR export/ })
      .getByText(/^Revoked /)
      .waitFor();
    expect(await main.getByRole("button", { name: "Revoke HR export" }).count(), "a revoked key has no revoke button").to.equal(0);

    const refused = await people(key);
    expect(refused.status).to.equal(401);
    expect(watched.consoleErrors, "no page errors").to.deep.equal([]);
    expect(watched.dialogs, "the page confirms in place, with no dialog").to.deep.equal([]);
  });
});
