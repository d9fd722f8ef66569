/**
 * What single sign-on suites share: a server of their own with dev-login off (on the shared
 * stack's Redis, Postgres and workers), a real identity provider process (test/harness/oidc-provider.ts)
 * whose clients are registered with that server's callback, two organisations each with its own
 * provider client and its own domain verified (as the operator approves one), and a cookie-jar
 * browser made of fetch that follows the flow hop by hop.
 */
import { randomBytes, randomUUID } from "node:crypto";
import pino from "pino";
import { approveDomain } from "../../commands/organisation-domains";
import { type IdentityProviderChange, type ProviderTarget, saveIdentityProvider } from "../../commands/organisation-identity-provider";
import type { Db } from "../../db/knex";
import type { IdentityProviderRow } from "../../db/queries/identity";
import { parseConfig } from "../../lib/config";
import { startServer, type RunningServer } from "../../server/server";
import { startTestIdentityProvider, type TestAccount, type TestIdentityProvider } from "../harness/oidc-provider";
import { api } from "../harness/client";
import { dropOrganisations } from "./organizations";
import type { Stack } from "./stack";
import { testEnv } from "./tunables";

export const CALLBACK = "/api/v1/auth/oidc/callback";

/** Cookies by host (ports share cookies, as in a browser), sent when their path matches. */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, { value: string; path: string; attributes: string }>>();

  store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith("path="))?.slice(5) ?? "/";
      const expired = attributes.some((a) => /^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()) || value === "";
      const host = this.cookies.get(url.hostname) ?? new Map();
      if (expired) host.delete(name);
      else host.set(name, { value, path, attributes: attributes.join("; ") });
      this.cookies.set(url.hostname, host);
    }
  }

  header(url: URL): string {
    const host = this.cookies.get(url.hostname) ?? new Map();
    return [...host.entries()]
      .filter(([, cookie]) => url.pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ");
  }

  get(name: string, host = "127.0.0.1"): { value: string; path: string; attributes: string } | undefined {
    return this.cookies.get(host)?.get(name);
  }

  set(name: string, value: string, path: string, host = "127.0.0.1"): void {
    const cookies = this.cookies.get(host) ?? new Map();
    cookies.set(name, { value, path, attributes: "" });
    this.cookies.set(host, cookies);
  }
}

export interface Hop {
  url: URL;
  status: number;
  location: string | null;
  body: string;
  ms: number;
}

/** One request as a browser sends it: the jar's cookies, no redirect followed. */
export async function hop(jar: CookieJar, url: URL, init: RequestInit = {}): Promise<Hop> {
  const started = performance.now();
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set("cookie", cookie);
  const response = await fetch(url, { ...init, headers, redirect: "manual" });
  jar.store(url, response);
  return { url, status: response.status, location: response.headers.get("location"), body: await response.text(), ms: performance.now() - started };
}

/**
 * From our start URL through the provider's login form to the redirect back to our callback,
 * which is returned unopened (a test may replay or tamper with it first).
 */
export function toCallback(jar: CookieJar, baseUrl: string, startPath: string, account: { email: string; password: string }): Promise<URL> {
  const origin = new URL(baseUrl).origin;
  return followSignIn(jar, new URL(startPath, baseUrl), account, (url) => url.pathname === CALLBACK && url.origin === origin);
}

/** Follows redirects from `start`, filling the provider's login form, until one points where `arrived` says; returns that URL unopened. */
export async function followSignIn(jar: CookieJar, start: URL, account: { email: string; password: string }, arrived: (url: URL) => boolean): Promise<URL> {
  let next = start;
  for (let step = 0; step < 12; step += 1) {
    if (arrived(next)) return next;
    const response = await hop(jar, next);
    const form = /<form method="post" action="([^"]+)"/.exec(response.body);
    if (response.status === 200 && form) {
      const posted = await hop(jar, new URL(form[1]!, next), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: account.email, password: account.password }).toString(),
      });
      if (!posted.location) throw new Error(`the provider's login form answered ${posted.status}: ${posted.body.slice(0, 200)}`);
      next = new URL(posted.location, next);
      continue;
    }
    if (!response.location) throw new Error(`sign-in stopped at ${next.href} with ${response.status}: ${response.body.slice(0, 300)}`);
    next = new URL(response.location, next);
  }
  throw new Error("too many redirects before the callback");
}

export interface SsoOrg {
  orgId: string;
  slug: string;
  domain: string;
  clientId: string;
  clientSecret: string;
  adminId: string;
  adminToken: string;
  /** The PUT body that configures this org's provider. */
  settings(overrides?: Record<string, unknown>): Record<string, unknown>;
}

export interface SsoWorld {
  server: RunningServer;
  baseUrl: string;
  idp: TestIdentityProvider;
  a: SsoOrg;
  b: SsoOrg;
  /** A password every test account uses. */
  password: string;
  stop(): Promise<void>;
}

export const unique = (): string => randomUUID().slice(0, 8);

/**
 * Starts the world: our server (dev-login off, its own SECRETS_KEY and timeout), the provider with
 * one client per organisation, and the two organisations, each with an admin and its provider saved.
 */
export async function startSsoWorld(stack: Stack, options: { env?: Record<string, string>; accounts?: TestAccount[] } = {}): Promise<SsoWorld> {
  const config = parseConfig(
    testEnv({
      ...process.env,
      DEV_LOGIN_ENABLED: "false",
      SECRETS_KEY: randomBytes(32).toString("hex"),
      OIDC_HTTP_TIMEOUT_MS: "1500",
      ...options.env,
    }),
  );
  const server = await startServer(config, { port: 0, host: "127.0.0.1" });
  const baseUrl = server.url;
  const db = stack.server.deps.db;
  const orgs: SsoOrg[] = [];
  for (const letter of ["a", "b"]) {
    const tag = `${letter}${unique()}`;
    const slug = `sso-${tag}`;
    const [org] = await db("organizations")
      .insert({ name: `SSO ${tag.toUpperCase()} Ltd`, slug })
      .returning("id");
    const domain = `${tag}.test`;
    const [admin] = await db("users")
      .insert({ org_id: org.id, email: `admin@${domain}`, name: `Admin ${tag}`, role: "admin", locale: "en" })
      .returning("id");
    const clientId = `skillnet-${tag}`;
    const clientSecret = `secret-${randomBytes(12).toString("hex")}`;
    const adminToken = await server.deps.tokens.sign({ userId: admin.id, orgId: org.id, role: "admin" });
    orgs.push({
      orgId: org.id,
      slug,
      domain,
      clientId,
      clientSecret,
      adminId: admin.id,
      adminToken,
      settings: (overrides = {}) => ({
        display_name: `Provider ${tag.toUpperCase()}`,
        issuer: idp.issuer,
        client_id: clientId,
        client_secret: clientSecret,
        allowed_domains: [domain],
        claim_mapping: { admin_groups: ["skillnet-admins"] },
        ...overrides,
      }),
    });
  }
  const idp = await startTestIdentityProvider({
    clients: orgs.map((org) => ({
      client_id: org.clientId,
      client_secret: org.clientSecret,
      redirect_uris: [`${baseUrl}${CALLBACK}`],
      post_logout_redirect_uris: [`${baseUrl}/`, `${baseUrl}/admin`],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    })),
    accounts: options.accounts ?? [],
  });
  for (const org of orgs) {
    // Verified as the operator would (each org's own `<tag>.test`): only a verified domain signs anyone in.
    await approveDomain(server.deps, { via: "cli" }, org.orgId, org.domain);
    const saved = await api(baseUrl, "PUT", "/api/v1/admin/identity-provider", { token: org.adminToken, body: org.settings() });
    if (saved.status !== 200) throw new Error(`saving the provider failed: ${saved.status} ${JSON.stringify(saved.body)}`);
  }
  return {
    server,
    baseUrl,
    idp,
    a: orgs[0]!,
    b: orgs[1]!,
    password: "correct horse battery staple",
    async stop() {
      await idp.stop().catch(() => undefined);
      await server.close().catch(() => undefined);
      await dropOrganisations(
        db,
        orgs.map((org) => org.orgId),
      );
    },
  };
}

/** The provider id an organisation's sign-in page would find (by slug). */
export async function startPathOf(world: SsoWorld, org: SsoOrg, returnTo = "/"): Promise<string> {
  const found = await api(world.baseUrl, "GET", `/api/v1/auth/providers?org=${org.slug}`);
  const provider = found.body.providers[0];
  if (!provider) throw new Error(`no provider for ${org.slug}`);
  return `${provider.start_url}?return_to=${encodeURIComponent(returnTo)}`;
}

/** POST /api/v1/auth/refresh as our page sends it. */
export function refresh(world: SsoWorld, jar: CookieJar, headers: Record<string, string> = { "x-requested-with": "skillnet" }): Promise<Hop> {
  return hop(jar, new URL("/api/v1/auth/refresh", world.baseUrl), { method: "POST", headers });
}

/**
 * Stores an organisation's provider the way the operator's CLI does (no discovery, no secret): a
 * fixture. By default the organisation's only one (created or changed); `{ kind: "new" }` adds another.
 */
export async function storeIdentityProvider(
  db: Db,
  orgId: string,
  change: IdentityProviderChange,
  target: ProviderTarget = { kind: "sole" },
): Promise<IdentityProviderRow> {
  return saveIdentityProvider(
    { db, log: pino({ level: "silent" }), config: { auth: { SECRETS_KEY: undefined } } },
    { via: "cli", userId: null },
    orgId,
    target,
    change,
  );
}
