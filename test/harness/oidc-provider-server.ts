/**
 * A real, certified OpenID Provider (`oidc-provider`) as its own process, for sign-in tests: it
 * serves discovery, JWKS (RS256), `/auth` with a login form a browser fills (email + password,
 * checked), `/token`, `/me` and `/session/end`, and issues JWT access tokens for the API
 * audience to a client that asks for it (`resource=`). Otherwise it keeps oidc-provider's defaults,
 * as a company's certified provider would: the ID token of the code flow carries no profile or
 * email claims (they come from UserInfo, OpenID Connect Core §5.4) and clients authenticate with
 * `client_secret_basic`. Started by test/harness/oidc-provider.ts with its settings in OIDC_TEST_CONFIG.
 *
 * A few control routes under `/__control` let a test do what an identity provider's operator
 * does: add or change an account, rotate the signing key, sign a token with the provider's own
 * key (to build the bad-token cases), or make the provider hang (an outage).
 * Prints `READY <issuer>` once it listens.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Provider, { type ClientMetadata, type Configuration } from "oidc-provider";
import { SignJWT, importJWK, type JWK } from "jose";

export interface TestAccount {
  sub: string;
  email: string;
  password: string;
  name?: string;
  email_verified?: boolean;
  department?: string;
  groups?: string[];
}

export interface OidcTestConfig {
  port: number;
  clients: ClientMetadata[];
  accounts: TestAccount[];
  /** `aud` of the JWT access tokens it issues (the API's resource). */
  apiAudience: string;
}

const config = JSON.parse(process.env.OIDC_TEST_CONFIG ?? "{}") as OidcTestConfig;
const issuer = `http://127.0.0.1:${config.port}`;
const accounts = new Map(config.accounts.map((account) => [account.sub, account]));

/** Signing keys, newest first; the provider signs with the first and publishes all. */
let keys: JWK[] = [newKey()];
/** While set, every request waits this long before it is answered (an outage). */
let hangMs = 0;

function newKey(): JWK {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...(privateKey.export({ format: "jwk" }) as JWK), kid: randomUUID(), alg: "RS256", use: "sig" };
}

function claimsOf(account: TestAccount): { sub: string; [claim: string]: unknown } {
  return {
    sub: account.sub,
    email: account.email,
    email_verified: account.email_verified ?? true,
    name: account.name,
    department: account.department,
    groups: account.groups ?? [],
  };
}

function buildProvider(): Provider {
  const configuration: Configuration = {
    clients: config.clients,
    jwks: { keys: keys as Configuration["jwks"] extends { keys: infer K } ? K : never },
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "department", "groups"] },
    cookies: { keys: ["a test provider's cookie key"] },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: () => ({
          scope: "openid email profile",
          audience: config.apiAudience,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => claimsOf(account) } : undefined;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { AccessToken: 600, IdToken: 600, Session: 3600, Interaction: 600, Grant: 3600, AuthorizationCode: 60 },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = false;
  return provider;
}

let provider = buildProvider();

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, error?: string): string {
  return `<!doctype html><html><head><title>Test identity provider</title></head><body>
<h1>Test identity provider</h1>${error ? `<p id="error">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/interaction/${uid}/login">
<label>Email <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></body></html>`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(res: ServerResponse, status: number, body: string, type = "text/html"): void {
  res.writeHead(status, { "content-type": type });
  res.end(body);
}

/** The login step: a real form, the password checked, then consent granted for what was asked. */
async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    if (action === "") return send(res, 200, loginPage(uid));
    const form = new URLSearchParams(await readBody(req));
    const account = [...accounts.values()].find((a) => a.email === form.get("email")?.trim().toLowerCase());
    if (!account || account.password !== form.get("password")) return send(res, 200, loginPage(uid, "Wrong email or password"));
    await provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    return;
  }
  // Consent: grant every scope, claim and resource the client asked for.
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(resource, scopes.join(" "));
  const grantId = await grant!.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function control(req: IncomingMessage, res: ServerResponse, what: string): Promise<void> {
  const body = JSON.parse((await readBody(req)) || "{}") as Record<string, unknown>;
  if (what === "account") {
    const account = body as unknown as TestAccount;
    accounts.set(account.sub, { ...accounts.get(account.sub), ...account });
    return send(res, 200, "{}", "application/json");
  }
  if (what === "rotate-keys") {
    // keep_old: publish the old key beside the new one (a graceful rotation); else it is gone.
    keys = body.keep_old ? [newKey(), ...keys] : [newKey()];
    provider = buildProvider();
    return send(res, 200, JSON.stringify({ kid: keys[0]!.kid }), "application/json");
  }
  if (what === "sign") {
    // A token signed with the provider's current key, with whatever claims and header the test wants.
    const key = keys[0]!;
    const header = { alg: "RS256", kid: key.kid, ...(body.header as object) } as { alg: string; kid?: string };
    const jwt = await new SignJWT(body.payload as Record<string, unknown>).setProtectedHeader(header).sign(await importJWK(key, "RS256"));
    return send(res, 200, JSON.stringify({ token: jwt }), "application/json");
  }
  if (what === "hang") {
    hangMs = Number(body.ms ?? 0);
    return send(res, 200, "{}", "application/json");
  }
  send(res, 404, "{}", "application/json");
}

const server = createServer(async (req, res) => {
  try {
    const path = new URL(req.url ?? "/", issuer).pathname;
    if (path.startsWith("/__control/")) return await control(req, res, path.slice("/__control/".length));
    if (hangMs > 0) await new Promise((resolve) => setTimeout(resolve, hangMs));
    const step = /^\/interaction\/([^/]+)(?:\/(login))?$/.exec(path);
    if (step) return await interaction(req, res, step[1]!, step[2] ?? "");
    provider.callback()(req, res);
  } catch (error) {
    if (!res.headersSent) send(res, 500, String((error as Error).message), "text/plain");
  }
});

server.listen(config.port, "127.0.0.1", () => console.log(`READY ${issuer}`));
