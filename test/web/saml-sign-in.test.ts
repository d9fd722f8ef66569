/**
 * SAML 2.0 sign-in in real Chromium, dev-login off, against a real IdP: Debian's SimpleSAMLphp
 * under PHP's built-in server (test/harness/simplesamlphp.ts). The organisation's admin stores the
 * provider by its metadata URL through the API (fetched through the outbound guard), the IdP is
 * given our SP's entity id, ACS, SLO and certificate, then an admin and a just-in-time employee
 * each sign in on SimpleSAMLphp's login form, land in our page signed in, and sign out — at the
 * IdP too (single logout: our signed LogoutRequest, its signed LogoutResponse back to us).
 */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { approveDomain } from "../../commands/organisation-domains";
import { parseConfig } from "../../lib/config";
import { samlSpUrls } from "../../lib/saml/sp-urls";
import { startServer, type RunningServer } from "../../server/server";
import { api } from "../harness/client";
import { startSimpleSamlPhp, type TestSamlIdp } from "../harness/simplesamlphp";
import { dropOrganisations } from "../support/organizations";
import { unique } from "../support/sso";
import { stackSuite } from "../support/suite";
import { testEnv } from "../support/tunables";
import { launchBrowser, openPage } from "./browser";

declare const document: any;

describe("web: SAML 2.0 sign-in with SimpleSAMLphp in Chromium (dev-login off)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  let server: RunningServer;
  let idp: TestSamlIdp;
  let browser: Browser;
  const tag = `saml${unique()}`;
  const domain = `${tag}.test`;
  const slug = `sso-${tag}`;
  let orgId: string;

  before(async function () {
    this.timeout(120_000);
    const config = parseConfig(testEnv({ ...process.env, DEV_LOGIN_ENABLED: "false", SECRETS_KEY: randomBytes(32).toString("hex") }));
    [server, idp, browser] = await Promise.all([
      startServer(config, { port: 0, host: "127.0.0.1" }),
      startSimpleSamlPhp([
        { username: "ada", password: "ada-secret", email: `admin@${domain}`, name: "Ada Admin", groups: ["skillnet-admins"] },
        { username: "jo", password: "jo-secret", email: `jo@${domain}`, name: "Jo Justintime", groups: ["staff"] },
      ]),
      launchBrowser(),
    ]);
    const db = stack.server.deps.db;
    const [org] = await db("organizations")
      .insert({ name: `SAML ${tag}`, slug })
      .returning("id");
    orgId = org.id;
    const [admin] = await db("users")
      .insert({ org_id: orgId, email: `admin@${domain}`, name: "Ada Admin", role: "admin", locale: "en" })
      .returning("id");
    await approveDomain(server.deps, { via: "cli" }, orgId, domain);
    const adminToken = await server.deps.tokens.sign({ userId: admin.id, orgId, role: "admin" });
    const saved = await api(server.url, "PUT", "/api/v1/admin/identity-provider", {
      token: adminToken,
      body: {
        protocol: "saml",
        display_name: "Campus SAML",
        metadata_url: idp.metadataUrl,
        allowed_domains: [domain],
        jit_enabled: true,
        claim_mapping: { admin_groups: ["skillnet-admins"] },
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const provider = saved.body.identity_provider;
    expect(provider.saml.idp_entity_id).to.equal(idp.metadataUrl);
    expect(provider.saml.slo_url).to.be.a("string");
    const testRun = await api(server.url, "POST", "/api/v1/admin/identity-provider/test", { token: adminToken });
    expect([testRun.status, testRun.body.error.code]).to.deep.equal([422, "TEST_SIGN_IN_UNSUPPORTED"]);
    const metadata = await fetch(provider.saml.sp_metadata_url);
    expect(metadata.headers.get("content-disposition")).to.include("attachment");
    const spXml = await metadata.text();
    const sp = samlSpUrls(server.url, provider.id);
    expect(spXml).to.include(`entityID="${sp.entityId}"`).and.to.include(sp.acs);
    const certificate = /<(?:ds:)?X509Certificate>([^<]+)</.exec(spXml)![1]!;
    idp.addServiceProvider({ entityId: sp.entityId, acsUrl: sp.acs, sloUrl: sp.slo, certificatePem: certificate });
  });

  after(async () => {
    await browser?.close();
    await idp?.stop();
    await server?.close();
    if (orgId) await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  async function signInAndOut(path: string, who: { username: string; password: string; name: string }): Promise<Page> {
    const { page, context } = await openPage(browser);
    await page.goto(`${server.url}${path}?org=${slug}`);
    await page.getByRole("button", { name: "Sign in with Campus SAML" }).click();
    await page.locator('input[name="username"]').waitFor({ timeout: 15_000 });
    expect(page.url()).to.include(idp.baseUrl);
    await page.locator('input[name="username"]').fill(who.username);
    await page.locator('input[name="password"]').fill(who.password);
    await page.locator('input[name="password"]').press("Enter");
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).to.equal(path);
    expect(await page.locator(".topbar .who").textContent()).to.include(who.name);
    expect(await page.evaluate(() => document.cookie)).to.not.include("skillnet_refresh");

    await page.getByRole("button", { name: "Sign out" }).click();
    // A confirmation, where the page asks for one.
    await page
      .getByRole("button", { name: "Yes, sign me out" })
      .click({ timeout: 1_500 })
      .catch(() => undefined);
    // Through the IdP's single logout and back to our page.
    await page.waitForURL((url) => url.origin === new URL(server.url).origin && url.pathname === path && !url.search.includes("SAML"), { timeout: 20_000 });
    await page.getByLabel("Work email").waitFor({ timeout: 15_000 });
    await page.reload();
    await page.getByLabel("Work email").waitFor();
    expect(await page.locator(".topbar").count(), "signed out stays signed out").to.equal(0);
    // The IdP's session ended too: signing in again asks for the password.
    await page.goto(`${server.url}${path}?org=${slug}`);
    await page.getByRole("button", { name: "Sign in with Campus SAML" }).click();
    await page.locator('input[name="username"]').waitFor({ timeout: 15_000 });
    await context.close();
    return page;
  }

  it("signs the admin into the console and a just-in-time employee into the tutor, and signs each out at the IdP too", async () => {
    await signInAndOut("/admin", { username: "ada", password: "ada-secret", name: "Ada Admin" });
    await signInAndOut("/", { username: "jo", password: "jo-secret", name: "Jo Justintime" });
    const db = stack.server.deps.db;
    const jo = await db("users")
      .where({ org_id: orgId, email: `jo@${domain}` })
      .first();
    expect(jo).to.include({ role: "employee", name: "Jo Justintime", provisioned_via: "jit" });
    const links = await db("identity_links").where({ org_id: orgId }).orderBy("subject").select("issuer", "subject");
    expect(links).to.deep.equal([
      { issuer: idp.metadataUrl, subject: `admin@${domain}` },
      { issuer: idp.metadataUrl, subject: `jo@${domain}` },
    ]);
    const live = await db("refresh_tokens").where({ org_id: orgId }).whereNull("revoked_at").count("* as n");
    expect(live).to.deep.equal([{ n: "0" }]);
  });
});
