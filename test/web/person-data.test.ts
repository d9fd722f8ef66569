/**
 * A person's data in real Chromium against the real stack: on the console's people page an
 * admin exports a person and downloads the zip the queue built; erasing asks for the person's
 * email first (nothing is sent before), then follows the job until the row is the anonymised
 * placeholder, which offers no actions. On the tutor page an employee downloads their own data.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { unzip } from "../support/zip-entries";
import { cleanUp, freshUser, unique, type Person } from "../workers/admin/helpers";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { launchBrowser, openPage, signInWithToken, type WatchedPage } from "./browser";

describe("web: exporting and erasing a person's data (people page, tutor header)", function () {
  this.timeout(60_000);
  const email = `petra-${unique()}@example.com`;
  let orgId = "";
  let admin: Person;
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  const row = (address: string) => page.locator(`tr.person[data-email="${address}"]`);

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    orgId = await freshOrganisation(stack, "Person data page");
    admin = await freshUser(stack, { role: "admin", orgId, name: "Ada Admin" });
    const [petra] = await stack.server.deps
      .db("users")
      .insert({ org_id: orgId, email, name: "Petra Private", role: "employee", department: "Sales" })
      .returning("id");
    const [session] = await stack.server.deps
      .db("chat_sessions")
      .insert({ org_id: orgId, user_id: petra.id, agent_type: "tutor", title: "Returns" })
      .returning("id");
    await stack.server.deps
      .db("chat_messages")
      .insert({ org_id: orgId, session_id: session.id, turn_id: session.id, role: "user", content: "How long do returns take?" });
    watched = await openPage(browser);
    page = watched.page;
    await signInWithToken(page, stack.baseUrl, admin.token, "/admin#people");
    await row(email).waitFor();
  });

  // A quiet page after each test: no console error, and no browser dialog (the confirm step is in the page).
  afterEach(() => expect({ errors: watched.consoleErrors, dialogs: watched.dialogs }).to.deep.equal({ errors: [], dialogs: [] }));
  after(async () => {
    await browser?.close();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  it("exports a person and downloads the zip once the job has built it", async () => {
    await row(email).getByRole("button", { name: "Export Petra Private's data" }).click();
    const download = row(email).getByRole("button", { name: "Download Petra Private's data" });
    await download.waitFor({ timeout: 30_000 });
    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(file.suggestedFilename()).to.equal("data-petra-private.zip");
    const entries = unzip(readFileSync((await file.path())!));
    expect(JSON.parse(entries.get("data.json")!).profile).to.include({ email, name: "Petra Private" });
    expect([...entries.keys()]).to.include("sessions/001-returns.md");
    expect(await row(admin.email).getByRole("button", { name: /Erase/ }).count(), "an admin is not offered to erase themselves").to.equal(0);
  });

  it("erases a person only once their email is typed, and shows the placeholder afterwards", async () => {
    await row(email).getByRole("button", { name: "Erase Petra Private's data" }).click();
    const step = row(email).getByRole("group", { name: "Confirm erasing Petra Private" });
    await step.waitFor();
    expect(await step.textContent()).to.include("cannot be undone");
    const confirm = step.getByRole("button", { name: "Erase", exact: true });
    expect(await confirm.isDisabled(), "not before the email is typed").to.equal(true);
    await step.getByLabel("Email of Petra Private").fill("someone@else.example");
    expect(await confirm.isDisabled()).to.equal(true);
    expect(await stack.server.deps.db("person_erasures").where({ org_id: orgId }).first(), "nothing is sent before the confirm").to.equal(undefined);
    await step.getByLabel("Email of Petra Private").fill(email.toUpperCase());
    await confirm.click();
    await page.locator(".people-status", { hasText: "Petra Private's data was erased." }).waitFor({ timeout: 30_000 });
    const placeholder = page.locator("tr.person", { hasText: "Erased person" });
    await placeholder.waitFor();
    expect(await placeholder.locator(".person-erased").textContent()).to.equal("Data erased");
    expect(await placeholder.getByRole("button").count(), "a placeholder has no actions").to.equal(0);
    expect(await row(email).count()).to.equal(0);
    expect(
      await stack.server.deps
        .db("chat_sessions")
        .whereIn("user_id", stack.server.deps.db("users").select("id").where({ org_id: orgId, name: "Erased person" }))
        .first(),
    ).to.equal(undefined);
  });

  it("lets an employee download their own data from the tutor's header", async () => {
    const employee = await freshUser(stack, { orgId, name: "Emil Employee" });
    const own = await openPage(browser);
    try {
      await signInWithToken(own.page, stack.baseUrl, employee.token, "/");
      const button = own.page.getByRole("button", { name: "Download my data" });
      await button.waitFor();
      const [file] = await Promise.all([own.page.waitForEvent("download", { timeout: 30_000 }), button.click()]);
      expect(file.suggestedFilename()).to.equal("my-skillnet-data.zip");
      const data = JSON.parse(unzip(readFileSync((await file.path())!)).get("data.json")!);
      expect(data.profile).to.include({ id: employee.id, name: "Emil Employee" });
      await own.page.getByRole("button", { name: "Download my data" }).waitFor();
      expect(own.consoleErrors).to.deep.equal([]);
    } finally {
      await own.context.close();
    }
  });
});
