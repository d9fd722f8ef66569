/**
 * Single sign-on in real Chromium, with dev-login off, against a real OpenID Provider process:
 * an employee types their work email, clicks "Sign in with …", types email and password on the
 * provider's page, lands in the tutor and gets a streamed answer; a reload keeps the session
 * (the refresh cookie; the access token only in memory); sign-out ends it at the provider too;
 * an admin does the same into the console and verifies an email domain (a DNS server of the
 * test's own answers the TXT record); a deactivated employee is thrown out. With a second provider
 * for contractors, the page offers the one of the email's domain, lists both from the
 * organisation's link, and the console lists them with a form per protocol; a SAML provider
 * saved there from an uploaded metadata file shows our SP's entity id and ACS URL.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { countingServer } from "../support/counting-server";
import { startTestDnsServer, type TestDnsServer } from "../support/dns-server";
import { approveDomain } from "../../commands/organisation-domains";
import { TestIdp } from "../support/saml-idp";
import { startPathOf, startSsoWorld, storeIdentityProvider, unique, type SsoWorld } from "../support/sso";
import { stackSuite } from "../support/suite";
import { scriptedResponder } from "../workers/tutor/helpers";
import { answerStreaming, launchBrowser, openPage, type WatchedPage } from "./browser";

declare const document: any, sessionStorage: any;

const ANSWER = "Single sign-on works: this answer streamed in many small pieces to the tutor page.";

/**
 * What went wrong on our pages: uncaught exceptions, and our server's error answers except the two
 * expected ones (the dev-login probe's 404 with dev-login off, a deactivated account's refused
 * refresh). The provider's own pages (its font from the internet, unreachable here) do not count.
 */
function watchOurs(watched: WatchedPage, baseUrl: string): () => string[] {
  const problems: string[] = [];
  watched.page.on("response", (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || url.origin !== baseUrl) return;
    if (response.status() === 404 && url.pathname === "/api/v1/auth/demo-users") return;
    if (response.status() === 401 && url.pathname === "/api/v1/auth/refresh") return;
    problems.push(`${response.status()} ${url.pathname}`);
  });
  return () => [...problems, ...watched.consoleErrors.filter((e) => e.startsWith("uncaught"))];
}

async function signInThroughProvider(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByRole("button", { name: /^Sign in with / }).click();
  await page.waitForURL(/\/interaction\//);
  await page.locator('input[name="email"]').fill(who.email);
  await page.locator('input[name="password"]').fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
}

describe("web: single sign-on in Chromium (dev-login off)", function () {
  const stack = stackSuite(this, { timeoutMs: 40_000 });
  let world: SsoWorld;
  let browser: Browser;
  let dns: TestDnsServer;
  const people: Record<"employee" | "admin", { email: string; password: string; id: string }> = {} as never;

  before(async function () {
    this.timeout(120_000);
    dns = await startTestDnsServer();
    [world, browser] = await Promise.all([
      startSsoWorld(stack, { env: { SOCKET_REAUTH_INTERVAL_MS: "300", ACCESS_TOKEN_TTL_SECONDS: "60", DNS_RESOLVERS: dns.address } }),
      launchBrowser(),
    ]);
    const db = stack.server.deps.db;
    const email = `eve@${world.a.domain}`;
    const [employee] = await db("users").insert({ org_id: world.a.orgId, email, name: "Eve Employee", role: "employee", locale: "en" }).returning("id");
    people.employee = { email, password: world.password, id: employee.id };
    people.admin = { email: `admin@${world.a.domain}`, password: world.password, id: world.a.adminId };
    await world.idp.addAccount({ sub: "eve", email, password: world.password, name: "Eve Employee" });
    await world.idp.addAccount({ sub: "ada", email: people.admin.email, password: world.password, name: "Ada Admin", groups: ["skillnet-admins"] });
  });
  /** A fresh browser context that opens an `?org=` sign-in link and goes through the provider. */
  async function signedInFromOrgLink(url: string, who: { email: string; password: string }) {
    const watched = await openPage(browser);
    const unexpected = watchOurs(watched, world.baseUrl);
    await watched.page.goto(url);
    await signInThroughProvider(watched.page, who);
    return { watched, page: watched.page, unexpected };
  }

  after(async () => {
    await browser?.close();
    await world?.stop();
    await dns?.close();
  });

  it("signs an employee in through the provider's page, answers them, keeps the session over a reload, and signs out at the provider too", async () => {
    const watched = await openPage(browser);
    const unexpected = watchOurs(watched, world.baseUrl);
    const { page } = watched;
    await page.goto(`${world.baseUrl}/`);
    expect(await page.locator("#token-input").count(), "no token to paste").to.equal(0);
    expect(await page.locator("button[data-email]").count(), "no demo users with dev-login off").to.equal(0);
    await page.getByLabel("Work email").fill(people.employee.email);
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await page.getByRole("button", { name: /^Sign in with / }).textContent()).to.equal(`Sign in with ${world.a.settings().display_name}`);
    await signInThroughProvider(page, people.employee);
    expect(page.url()).to.equal(`${world.baseUrl}/`);
    expect(await page.locator(".topbar .who").textContent()).to.include("Eve Employee");
    expect(await page.evaluate(() => sessionStorage.getItem("skillnet.token")), "the access token stays in memory").to.equal(null);
    expect(await page.evaluate(() => document.cookie)).to.not.include("skillnet_refresh");

    stack.llm.setResponder(scriptedResponder({ label: "chitchat", generation: () => ANSWER }));
    stack.llm.setTokenDelay(15);
    await page.getByLabel("Message", { exact: true }).fill("Does sign-in work?");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    await answerStreaming(page);
    await page.waitForFunction(() => [...document.querySelectorAll("li.msg.assistant")].pop()?.getAttribute("aria-busy") === "false", undefined, {
      timeout: 20_000,
    });
    expect(await page.locator("li.msg.assistant .answer-text").last().textContent()).to.include("Single sign-on works");
    stack.llm.setTokenDelay(0);

    await page.reload();
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
    expect(await page.locator(".topbar .who").textContent()).to.include("Eve Employee");

    // A 60 s token is refreshed ahead of its expiry (here within seconds), in the background, and the page stays live.
    const renewed = await page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/refresh"), { timeout: 10_000 });
    expect(renewed.status()).to.equal(200);
    expect(await page.locator(".topbar .connection.connected").count()).to.equal(1);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.getByLabel("Work email").waitFor({ timeout: 15_000 });
    expect(page.url()).to.equal(`${world.baseUrl}/`);
    await page.reload();
    await page.getByLabel("Work email").waitFor();
    expect(await page.locator(".topbar").count(), "signed out stays signed out").to.equal(0);
    expect(unexpected()).to.deep.equal([]);
    await watched.context.close();
  });

  it("signs an admin into the console from an ?org= link and shows the sign-in settings page", async () => {
    const { watched, page, unexpected } = await signedInFromOrgLink(`${world.baseUrl}/admin?org=${world.a.slug}`, people.admin);
    expect(new URL(page.url()).pathname).to.equal("/admin");
    await page.getByRole("link", { name: "Sign-in" }).click();
    await page.locator(".sign-in-settings").waitFor();
    expect(await page.locator('input[name="issuer"]').inputValue()).to.equal(world.idp.issuer);
    expect(await page.locator('input[name="client_secret"]').inputValue(), "the secret is never sent to the page").to.equal("");
    expect(await page.locator('input[name="client_secret"]').getAttribute("placeholder")).to.include("Stored");
    // "Test sign-in" opens the provider in a new tab (signed in there already) and reports, signing nobody in.
    const [report] = await Promise.all([page.waitForEvent("popup"), page.getByRole("button", { name: "Test sign-in" }).click()]);
    await report.getByRole("heading", { name: "Test sign-in" }).waitFor({ timeout: 15_000 });
    expect(await report.locator("#verdict").textContent()).to.include(`Would sign in ${people.admin.email} as admin`);
    await report.close();
    expect(unexpected()).to.deep.equal([]);
    await watched.context.close();
  });

  it("refuses a sign-in another site starts in the visitor's browser (login CSRF): a clear page, no sign-in cookie, the visitor's session kept", async () => {
    // The attacker is organisation B's admin, whose own provider would approve at once; the page is on another origin.
    const start = await startPathOf(world, world.b);
    const attackerPage = await countingServer("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>Free course</title><script>location.href = ${JSON.stringify(`${world.baseUrl}${start}`)};</script>`);
    });
    const watched = await openPage(browser);
    try {
      const ours = new URL(world.baseUrl);
      await watched.context.addCookies([{ name: "skillnet_refresh", value: "the-visitors-own-session", domain: ours.hostname, path: "/api/v1/auth" }]);
      await watched.page.goto(`http://localhost:${attackerPage.port}/`);
      await watched.page.waitForURL((url) => url.origin === ours.origin);
      expect(await watched.page.locator("#code").textContent()).to.equal("SIGN_IN_CROSS_SITE");
      expect(await watched.page.locator("#message").textContent()).to.include("started by another website");
      const cookies = (await watched.context.cookies()).filter((cookie) => cookie.domain === ours.hostname);
      expect(cookies.map((cookie) => cookie.name)).to.not.include("skillnet_sso");
      expect(cookies.find((cookie) => cookie.name === "skillnet_refresh")?.value).to.equal("the-visitors-own-session");
      // The same URL typed or opened from our own page still starts the sign-in at the provider.
      await watched.page.goto(`${world.baseUrl}${start}`);
      await watched.page.waitForURL(/\/interaction\//);
      expect((await watched.context.cookies()).map((cookie) => cookie.name)).to.include("skillnet_sso");
    } finally {
      await watched.context.close();
      await attackerPage.close();
    }
  });

  it("lets the admin add a domain, shows the TXT record to publish, verifies it by DNS, refuses a public mail domain, and removes it", async () => {
    const { watched, page, unexpected } = await signedInFromOrgLink(`${world.baseUrl}/admin?org=${world.a.slug}`, people.admin);
    await page.getByRole("link", { name: "Sign-in" }).click();
    const section = page.locator(".sign-in-domains");
    await section.getByRole("heading", { name: "Domains" }).waitFor();
    expect(await section.locator(`li[data-domain="${world.a.domain}"] .domain-status`).textContent()).to.include(
      "Verified (approved by the platform operator)",
    );

    const domain = `web-${Date.now().toString(36)}.test`;
    await section.getByLabel("Email domain").fill(domain);
    await section.getByRole("button", { name: "Add domain" }).click();
    const row = section.locator(`li[data-domain="${domain}"]`);
    await row.waitFor();
    expect(await row.getAttribute("data-status")).to.equal("pending");
    const name = await row.locator(".txt-name").textContent();
    const value = (await row.locator(".txt-value").textContent()) ?? "";
    expect(name).to.equal(`_skillnet-challenge.${domain}`);
    expect(value).to.match(/^skillnet-domain-verification=[0-9a-f]{32}$/);

    // Not published yet: it stays pending and the page says why.
    await row.getByRole("button", { name: `Verify ${domain}` }).click();
    await section.getByRole("alert").waitFor();
    expect(await section.getByRole("alert").textContent()).to.include(`No TXT record _skillnet-challenge.${domain}`);
    expect(await row.getAttribute("data-status")).to.equal("pending");
    dns.publishTxt(name!, value);
    await row.getByRole("button", { name: `Verify ${domain}` }).click();
    await section.locator(`li[data-domain="${domain}"][data-status="verified"]`).waitFor();
    expect(await row.locator(".domain-status").textContent()).to.equal("Verified (DNS)");
    expect(await row.locator(".txt-record").count(), "no record to publish once verified").to.equal(0);

    await section.getByLabel("Email domain").fill("gmail.com");
    await section.getByRole("button", { name: "Add domain" }).click();
    await section.getByRole("alert").waitFor();
    expect(await section.getByRole("alert").textContent()).to.include("public mail service");

    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: `Remove ${domain}` }).click();
    await row.waitFor({ state: "detached" });
    expect(await stack.server.deps.db("organisation_domains").where({ domain }).first()).to.equal(undefined);
    const addedId = (
      await stack.server.deps
        .db("audit_log")
        .where({ org_id: world.a.orgId, action: "organisation_domain.added" })
        .orderBy("created_at", "desc")
        .first("target_id")
    ).target_id;
    expect(unexpected(), "only the two refusals the test asked for").to.deep.equal([
      `409 /api/v1/admin/identity-provider/domains/${addedId}/verify`,
      "422 /api/v1/admin/identity-provider/domains",
    ]);
    await watched.context.close();
  });

  it("throws out an employee who is deactivated while signed in", async () => {
    const { watched, page, unexpected } = await signedInFromOrgLink(`${world.baseUrl}/?org=${world.a.slug}`, people.employee);
    const db = stack.server.deps.db;
    // What deactivation does (db/queries/admin-action-items.ts deactivateUser): the account off, its refresh tokens revoked.
    await db("users").where({ id: people.employee.id }).update({ is_active: false });
    await db("refresh_tokens").where({ user_id: people.employee.id }).update({ revoked_at: db.fn.now() });
    await page.locator(".sign-in").waitFor({ timeout: 15_000 });
    expect(await page.locator(".alert").first().textContent()).to.match(/no longer|deactivated|expired/i);
    await page.reload();
    await page.locator(".sign-in").waitFor();
    expect(await page.locator(".topbar").count()).to.equal(0);
    // A request still in flight from the first page load when the account went off gets the 401
    // that throws the page out (CI saw the session list's); anything else is unexpected.
    expect(unexpected().filter((failure) => !failure.startsWith("401 "))).to.deep.equal([]);
    await db("users").where({ id: people.employee.id }).update({ is_active: true });
    await watched.context.close();
  });

  it("offers the provider of the email's domain, lists an organisation's several, and the console lists them with a form per protocol", async () => {
    const db = stack.server.deps.db;
    const contractors = `contractors-${unique()}.test`;
    await approveDomain(world.server.deps, { via: "cli" }, world.a.orgId, contractors);
    const second = await storeIdentityProvider(
      db,
      world.a.orgId,
      {
        display_name: "Contractors Google",
        issuer: "https://accounts.contractors.example",
        client_id: "contractors",
        allowed_domains: [contractors],
      },
      { kind: "new" },
    );
    const watched = await openPage(browser);
    const unexpected = watchOurs(watched, world.baseUrl);
    const { page } = watched;
    const providerButtons = () => page.locator("button.provider-button").allTextContents();
    await page.goto(`${world.baseUrl}/`);
    await page.getByLabel("Work email").fill(`cleo@${contractors}`);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.locator(`button[data-provider="${second.id}"]`).waitFor();
    expect(await providerButtons(), "the contractors' domain: its provider only").to.deep.equal(["Sign in with Contractors Google"]);
    expect(await page.locator("#choose-provider").count()).to.equal(0);

    await page.goto(`${world.baseUrl}/admin?org=${world.a.slug}`);
    await page.locator("#choose-provider").waitFor();
    expect((await providerButtons()).sort()).to.deep.equal(["Sign in with Contractors Google", `Sign in with ${world.a.settings().display_name}`].sort());
    await page.getByRole("button", { name: `Sign in with ${world.a.settings().display_name}` }).click();
    await page.waitForURL(/\/interaction\//);
    await page.locator('input[name="email"]').fill(people.admin.email);
    await page.locator('input[name="password"]').fill(people.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });

    await page.getByRole("link", { name: "Sign-in" }).click();
    const rows = page.locator(".provider-rows li");
    await rows.nth(1).waitFor();
    expect(await rows.locator(".provider-name").allTextContents()).to.deep.equal(["Contractors Google", world.a.settings().display_name]);
    expect(await page.locator(".provider-form").count(), "several: no form until one is chosen").to.equal(0);
    await page.getByRole("button", { name: "Edit Contractors Google" }).click();
    expect(await page.locator('.provider-form input[name="issuer"]').inputValue()).to.equal("https://accounts.contractors.example");
    await page.getByRole("button", { name: "Add a provider" }).click();
    await page.getByLabel("SAML 2.0").check();
    expect(await page.locator('.provider-form input[name="idp_metadata_url"]').count()).to.equal(1);
    expect(await page.locator('.provider-form input[name="issuer"]').count(), "no OIDC fields on the SAML form").to.equal(0);
    expect(await page.locator('.provider-form input[name="allow_idp_initiated"]').isChecked(), "IdP-initiated sign-in off by default").to.equal(false);
    // Saved from the console with an uploaded metadata file: the API takes what the form posts, and the page shows our SP's values.
    const samlIdp = new TestIdp();
    const metadataFile = join(tmpdir(), `idp-${unique()}.xml`);
    writeFileSync(metadataFile, samlIdp.metadata());
    await page.locator('.provider-form input[name="display_name"]').fill("Partner SAML");
    await page.locator('.provider-form input[name="idp_metadata_file"]').setInputFiles(metadataFile);
    await page.getByText("A metadata file is ready to be saved.").waitFor();
    await page.locator(".provider-form").getByRole("button", { name: "Save", exact: true }).click();
    const entityId = await page.locator(".provider-form .sp-entity-id").textContent({ timeout: 10_000 });
    const samlRow = await db("identity_providers").where({ org_id: world.a.orgId, display_name: "Partner SAML" }).first();
    expect(samlRow).to.include({ protocol: "saml", issuer: null });
    expect(samlRow.saml_config).to.include({ entity_id: samlIdp.entityId, allow_idp_initiated: false, metadata_url: null });
    expect(entityId).to.match(new RegExp(`/api/v1/auth/saml/${samlRow.id}/metadata$`));
    expect(await page.locator(".provider-form .sp-acs-url").textContent()).to.match(new RegExp(`/api/v1/auth/saml/${samlRow.id}/acs$`));
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Remove Partner SAML" }).click();
    await page.locator(`.provider-rows li[data-provider-id="${samlRow.id}"]`).waitFor({ state: "detached" });

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Remove Contractors Google" }).click();
    await page.locator(`.provider-rows li[data-provider-id="${second.id}"]`).waitFor({ state: "detached" });
    expect(await db("identity_providers").where({ org_id: world.a.orgId }).pluck("display_name")).to.deep.equal([world.a.settings().display_name]);
    expect(unexpected()).to.deep.equal([]);
    await watched.context.close();
  });
});
