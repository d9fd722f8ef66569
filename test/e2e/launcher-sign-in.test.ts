/**
 * Single sign-on on the product as the launcher runs it, with dev-login off (as a deployment runs
 * it): the operator's org CLI creates one company on a stock OpenID Provider (`oidc-provider` on
 * its defaults: no profile or email claims in the ID token, client_secret_basic) and another on
 * SimpleSAMLphp, then in Chromium each company's admin types their work email, goes through the
 * provider's own login form and lands in the console, and a person the product has never seen
 * lands in the tutor, created just in time. Who got signed in is checked with the server, by the
 * access token the page itself received.
 */
import { rmSync } from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { api } from "../harness/client";
import { startTestIdentityProvider, type TestIdentityProvider } from "../harness/oidc-provider";
import { startSimpleSamlPhp, type TestSamlIdp } from "../harness/simplesamlphp";
import { hasExited, launcherRunning, launcherSetup, processesOf, startLauncher, type Launcher, type LauncherSetup } from "../support/launcher";
import { launcherClient, orgCli, trustServiceProvider } from "../support/launcher-company";
import { launchBrowser, openPage } from "../web/browser";

interface Person {
  email: string;
  /** What the provider's form asks for: the email at the OpenID Provider, a username at SimpleSAMLphp. */
  login: string;
  password: string;
  name: string;
}

describe("sign-in on the product started by the launcher, dev-login off (Chromium)", function () {
  this.timeout(120_000);
  let setup: LauncherSetup;
  let launcher: Launcher;
  let browser: Browser;
  let oidc: TestIdentityProvider;
  let saml: TestSamlIdp;

  const org = (...args: string[]) => orgCli(setup)(...args);

  before(async function () {
    this.timeout(300_000);
    // Dev-login off, so the launcher no longer opens loopback to outbound calls: the operator lists
    // the range its identity providers run on, as a deployment with a provider on its LAN does.
    setup = await launcherSetup({ DEV_LOGIN_ENABLED: "false", OUTBOUND_ALLOWED_CIDRS: "127.0.0.0/8,::1/128" });
    launcher = startLauncher(setup, { script: "launcher/start.ts", detached: true });
    [browser, oidc, saml] = await Promise.all([
      launchBrowser(),
      startTestIdentityProvider({
        clients: [launcherClient(setup, "delta-app", "delta-app-secret")],
        accounts: [
          { sub: "dora-1", email: "dora@delta.example", password: "dora-pass", name: "Dora Admin" },
          { sub: "dan-2", email: "dan@delta.example", password: "dan-pass", name: "Dan Newhire", department: "Warehouse" },
        ],
      }),
      startSimpleSamlPhp([
        { username: "eli", password: "eli-pass", email: "eli@epsilon.example", name: "Eli Admin", groups: ["epsilon-admins"] },
        { username: "eva", password: "eva-pass", email: "eva@epsilon.example", name: "Eva Newhire" },
      ]),
      launcherRunning(launcher),
    ]);

    await org("create", "--name", "Delta Haulage", "--slug", "delta", "--admin-email", "dora@delta.example", "--admin-name", "Dora Admin");
    const client = ["--issuer", oidc.issuer, "--client-id", "delta-app", "--client-secret", "delta-app-secret"];
    await org("idp", "set", "--org", "delta", ...client, "--display-name", "Delta SSO", "--domains", "delta.example", "--jit");

    await org("create", "--name", "Epsilon Stores", "--slug", "epsilon", "--admin-email", "eli@epsilon.example", "--admin-name", "Eli Admin");
    const set = ["idp", "set", "--org", "epsilon", "--protocol", "saml", "--metadata-url", saml.metadataUrl, "--display-name", "Epsilon SAML"];
    const stored = JSON.parse((await org(...set, "--domains", "epsilon.example", "--jit", "--admin-groups", "epsilon-admins", "--json")).stdout);
    await trustServiceProvider(saml, setup.baseUrl, stored.id);
  });

  after(async () => {
    await browser?.close();
    await Promise.all([oidc?.stop(), saml?.stop()]);
    if (launcher && !hasExited(launcher)) process.kill(-launcher.process.pid!, "SIGKILL");
    for (const { pid } of setup ? processesOf(setup.dataDir) : []) process.kill(pid, "SIGKILL");
    if (setup) rmSync(setup.dataDir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed") process.stdout.write(`launcher output:\n${launcher.output().slice(-6000)}\n`);
  });

  /** From our sign-in page at `path` through the provider's form; returns the access token the page was given. */
  async function signIn(
    path: "/" | "/admin",
    who: Person,
    button: string,
    fillProviderForm: (page: Page) => Promise<void>,
  ): Promise<{ page: Page; token: string }> {
    const { page } = await openPage(browser);
    await page.goto(`${setup.baseUrl}${path}`);
    expect(await page.locator("button[data-email]").count(), "no demo users with dev-login off").to.equal(0);
    await page.getByLabel("Work email").fill(who.email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: button }).click();
    const refreshed = page.waitForResponse((r) => r.url() === `${setup.baseUrl}/api/v1/auth/refresh` && r.status() === 200, { timeout: 30_000 });
    await fillProviderForm(page);
    const token = ((await (await refreshed).json()) as { access_token: string }).access_token;
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).to.equal(path);
    expect(await page.locator(".topbar .who").textContent()).to.include(who.name);
    return { page, token };
  }

  async function expectSignedIn(token: string, who: Person, role: "admin" | "employee", organisation: string) {
    const me = await api(setup.baseUrl, "GET", "/api/v1/me", { token });
    expect(me.status, JSON.stringify(me.body)).to.equal(200);
    expect(me.body.user).to.include({ email: who.email, name: who.name, role });
    expect(me.body.organisation.name).to.equal(organisation);
  }

  /** The company's admin into the console, then a person it has never seen into the tutor, created at that sign-in. */
  async function adminAndNewEmployee(
    company: { name: string; button: string },
    admin: Person,
    newcomer: Person,
    form: (page: Page, who: Person) => Promise<void>,
  ) {
    const console_ = await signIn("/admin", admin, company.button, (page) => form(page, admin));
    await console_.page.locator("nav.tabs").getByRole("link", { name: "Sign-in" }).waitFor();
    await expectSignedIn(console_.token, admin, "admin", company.name);

    const tutor = await signIn("/", newcomer, company.button, (page) => form(page, newcomer));
    await tutor.page.getByLabel("Message", { exact: true }).waitFor();
    await expectSignedIn(tutor.token, newcomer, "employee", company.name);

    const people = await api(setup.baseUrl, "GET", "/api/v1/admin/people", { token: console_.token });
    const arrivals = (people.body.people as Array<{ email: string; provisioned_via: string }>).map((p) => [p.email, p.provisioned_via]);
    expect(arrivals.sort()).to.deep.equal(
      [
        [admin.email, "cli"],
        [newcomer.email, "jit"],
      ].sort(),
    );
  }

  it("with dev-login refused, a stock oidc-provider signs its admin into the console and a new employee, just in time, into the tutor", async () => {
    const refused = await api(setup.baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email: "admin@example.com" } });
    expect(refused.status).to.equal(404);

    await adminAndNewEmployee(
      { name: "Delta Haulage", button: "Sign in with Delta SSO" },
      { email: "dora@delta.example", login: "dora@delta.example", password: "dora-pass", name: "Dora Admin" },
      { email: "dan@delta.example", login: "dan@delta.example", password: "dan-pass", name: "Dan Newhire" },
      async (page, who) => {
        await page.waitForURL(/\/interaction\//);
        await page.locator('input[name="email"]').fill(who.login);
        await page.locator('input[name="password"]').fill(who.password);
        await page.getByRole("button", { name: "Sign in" }).click();
      },
    );
  });

  it("SimpleSAMLphp signs its admin into the console and a new employee, just in time, into the tutor", async () => {
    await adminAndNewEmployee(
      { name: "Epsilon Stores", button: "Sign in with Epsilon SAML" },
      { email: "eli@epsilon.example", login: "eli", password: "eli-pass", name: "Eli Admin" },
      { email: "eva@epsilon.example", login: "eva", password: "eva-pass", name: "Eva Newhire" },
      async (page, who) => {
        await page.locator('input[name="username"]').waitFor({ timeout: 15_000 });
        expect(page.url()).to.include(saml.baseUrl);
        await page.locator('input[name="username"]').fill(who.login);
        await page.locator('input[name="password"]').fill(who.password);
        await page.locator('input[name="password"]').press("Enter");
      },
    );
  });
});
