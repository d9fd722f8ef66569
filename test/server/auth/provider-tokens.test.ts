/**
 * Access tokens from an organisation's identity provider at the API and the socket handshake,
 * against a real OpenID Provider process (test/harness/oidc-provider.ts) whose tokens are really
 * signed: one from its own code flow and login form, the bad cases built with its key
 * (`provider.sign`) or without it. Two organisations have providers with the same issuer and
 * different audiences; a third, on a second provider, goes through key rotation and an outage on
 * a server with a short JWKS cooldown.
 */
import { createPublicKey, randomUUID } from "node:crypto";
import { testRsaKeyPair } from "../../harness/test-keys";
import { expect } from "chai";
import type { Logger } from "pino";
import { SignJWT, base64url, importJWK, type JWK } from "jose";
import { linkIdentity } from "../../../db/queries/identity-link-writes";
import { parseConfig } from "../../../lib/config";
import { startServer, type RunningServer } from "../../../server/server";
import { findFreePort } from "../../../launcher/embedded/child-process";
import { api, connect } from "../../harness/client";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../harness/oidc-provider";
import { dropOrganisations } from "../../support/organizations";
import { storeIdentityProvider } from "../../support/sso";
import { stackSuite } from "../../support/suite";
import { providerAccessToken, providerTokens, type ProviderClient } from "./provider-sign-in";
import { ProviderTokens } from "../../../server/auth/provider-tokens";
import { routeToken } from "../../../server/auth/token-claims";
import { outboundClientOf } from "../../../lib/outbound/client-of-config";
import { testEnv } from "../../support/tunables";

const now = () => Math.floor(Date.now() / 1000);
const AUDIENCE_B = "client-b";

describe("identity-provider tokens at the API and the socket handshake", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000, resetModel: false });
  let provider: TestIdentityProvider;
  let app: ProviderClient;
  const orgIds: string[] = [];
  const people: Record<"ana" | "ben" | "ines", { id: string; orgId: string; sub: string; email: string }> = {} as never;
  let sessionOfBen: string;
  const sockets: Array<{ disconnect(): void }> = [];

  const db = () => stack.server.deps.db;

  async function organisation(name: string): Promise<string> {
    const [row] = await db()("organizations")
      .insert({ name, slug: `idp-${randomUUID().slice(0, 8)}` })
      .returning("id");
    orgIds.push(row.id);
    return row.id;
  }

  async function person(orgId: string, sub: string, issuer: string, providerId: string) {
    const email = `${sub}@idp-test.example`;
    const [row] = await db()("users").insert({ org_id: orgId, email, name: sub, role: "employee", department: "QA", locale: "en" }).returning("id");
    await linkIdentity(db(), { org_id: orgId, user_id: row.id, provider_id: providerId, issuer, subject: sub });
    return { id: row.id as string, orgId, sub, email };
  }

  const providerSettings = (issuer: string, clientId: string, apiAudience: string | null) => ({
    display_name: "Test IdP",
    issuer,
    client_id: clientId,
    api_audience: apiAudience,
    // A domain belongs to one organisation's sign-in; these tests sign in by token, not by email.
    allowed_domains: [`d${randomUUID().slice(0, 8)}.idp-test.example`],
    claim_mapping: {},
    jit_enabled: false,
    enabled: true,
  });

  /** A token signed with the provider's current key, valid unless `claims` says otherwise. */
  const signed = (sub: string, claims: Record<string, unknown> = {}, header?: Record<string, unknown>) =>
    provider.sign({ iss: provider.issuer, aud: provider.apiAudience, sub, iat: now(), exp: now() + 300, ...claims }, header);

  const me = (token: string, baseUrl = stack.baseUrl) => api(baseUrl, "GET", "/api/v1/me", { token });

  async function expectRefused(token: string, code: string, baseUrl = stack.baseUrl): Promise<void> {
    const response = await me(token, baseUrl);
    expect(response.status, JSON.stringify(response.body)).to.equal(401);
    expect(response.body.error.code).to.equal(code);
  }

  before(async function () {
    this.timeout(120_000);
    const closed = await findFreePort();
    app = { clientId: "client-a", clientSecret: "client-a-secret-that-is-long-enough", redirectUri: `http://127.0.0.1:${closed}/callback` };
    provider = await startTestIdentityProvider({
      clients: [
        {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          redirect_uris: [app.redirectUri],
          grant_types: ["authorization_code"],
          response_types: ["code"],
        },
      ],
    });
    app.resource = provider.apiAudience;
    const orgA = await organisation("IdP Alpha");
    const orgB = await organisation("IdP Beta");
    // Same issuer for both (as with Google): A's API audience is the provider's, B's falls back to its client id.
    const providerA = await storeIdentityProvider(db(), orgA, providerSettings(provider.issuer, app.clientId, provider.apiAudience));
    const providerB = await storeIdentityProvider(db(), orgB, providerSettings(provider.issuer, AUDIENCE_B, null));
    people.ana = await person(orgA, `ana-${randomUUID().slice(0, 6)}`, provider.issuer, providerA.id);
    people.ines = await person(orgA, `ines-${randomUUID().slice(0, 6)}`, provider.issuer, providerA.id);
    people.ben = await person(orgB, `ben-${randomUUID().slice(0, 6)}`, provider.issuer, providerB.id);
    await provider.addAccount({ sub: people.ana.sub, email: people.ana.email, password: "ana's password" });
    const [session] = await db()("chat_sessions").insert({ org_id: orgB, user_id: people.ben.id, agent_type: "tutor", title: "Ben's" }).returning("id");
    sessionOfBen = session.id;
    // A server that read the provider list a moment ago re-reads it on an unknown issuer at most once a second.
    const deadline = Date.now() + 5_000;
    while ((await me(await signed(people.ana.sub))).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  });

  after(async () => {
    for (const socket of sockets) socket.disconnect();
    await provider?.stop();
    await dropOrganisations(db(), orgIds);
  });

  it("accepts an access token from the provider's own code flow as the linked person, with the stored role", async () => {
    const token = await providerAccessToken(provider.issuer, app, people.ana.email, "ana's password");
    const response = await me(token);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body.user).to.include({ id: people.ana.id, org_id: people.ana.orgId, role: "employee" });
    await db()("users").where({ id: people.ana.id }).update({ role: "admin" });
    expect((await me(token)).body.user.role).to.equal("admin");
    await db()("users").where({ id: people.ana.id }).update({ role: "employee" });
  });

  it("keeps each organisation's people apart: the link decides the organisation, never an `org` claim", async () => {
    const token = await signed(people.ana.sub, { org: people.ben.orgId, role: "admin" });
    const response = await me(token);
    expect(response.body.user).to.include({ id: people.ana.id, org_id: people.ana.orgId, role: "employee" });
    const sessions = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token });
    expect(sessions.status).to.equal(200);
    expect(JSON.stringify(sessions.body)).to.not.include(sessionOfBen);
    expect((await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionOfBen}/messages`, { token })).status).to.equal(404);
    // Ben, linked through B's provider (audience = B's client id, so typed access tokens only), reaches his own session.
    const ben = await signed(people.ben.sub, { aud: AUDIENCE_B }, { typ: "at+jwt" });
    expect((await me(ben)).body.user).to.include({ id: people.ben.id, org_id: people.ben.orgId });
    expect((await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionOfBen}/messages`, { token: ben })).status).to.equal(200);
  });

  it("refuses a token minted for another organisation's audience on the shared issuer", async () => {
    // Ben's link is through B, whose audience is client-b: a token for A's audience is not his.
    await expectRefused(await signed(people.ben.sub), "TOKEN_AUDIENCE");
    await expectRefused(await signed(people.ana.sub, { aud: "urn:someone-else:api" }), "TOKEN_AUDIENCE");
  });

  it("refuses an ID token as an access token where the API audience is the client id, and keeps typed access tokens working (F13)", async () => {
    // B has no api_audience: its API audience is its client id, which is exactly an ID token's `aud`.
    const idTokenShaped = await signed(people.ben.sub, { aud: AUDIENCE_B, nonce: "n0nce", at_hash: "x" }, { typ: "JWT" });
    await expectRefused(idTokenShaped, "TOKEN_TYPE");
    await expectRefused(await signed(people.ben.sub, { aud: AUDIENCE_B }), "TOKEN_TYPE");
    expect((await me(await signed(people.ben.sub, { aud: AUDIENCE_B }, { typ: "at+jwt" }))).status).to.equal(200);
    expect((await me(await signed(people.ben.sub, { aud: AUDIENCE_B }, { typ: "application/at+jwt" }))).status).to.equal(200);
    // Untyped access tokens as Entra ID v2 (`scp`) and Keycloak (`scope`, `typ: Bearer`) issue them work; Keycloak's ID token does not.
    expect((await me(await signed(people.ben.sub, { aud: AUDIENCE_B, scp: "access_as_user" }, { typ: "JWT" }))).status).to.equal(200);
    expect((await me(await signed(people.ben.sub, { aud: AUDIENCE_B, scope: "openid email", typ: "Bearer" }, { typ: "JWT" }))).status).to.equal(200);
    await expectRefused(await signed(people.ben.sub, { aud: AUDIENCE_B, scope: "openid", typ: "ID" }, { typ: "JWT" }), "TOKEN_TYPE");
    await expectRefused(await signed(people.ben.sub, { aud: AUDIENCE_B, scope: "openid", nonce: "n" }, { typ: "at+jwt" }), "TOKEN_TYPE");
    // A, with an API audience of its own, is unchanged: the audience alone keeps its ID tokens out.
    expect((await me(await signed(people.ana.sub))).status).to.equal(200);
  });

  it("refuses the ID token a real code flow issued to the organisation's client, on a provider with no api_audience (F13)", async function () {
    this.timeout(30_000);
    // Organisation D signs in with the same client (client-a) but sets no API audience; Dora is linked through it.
    const orgD = await organisation("IdP Delta");
    const providerD = await storeIdentityProvider(db(), orgD, providerSettings(provider.issuer, app.clientId, null));
    const dora = await person(orgD, `dora-${randomUUID().slice(0, 6)}`, provider.issuer, providerD.id);
    await provider.addAccount({ sub: dora.sub, email: dora.email, password: "dora's password" });
    const tokens = await providerTokens(provider.issuer, app, dora.email, "dora's password");
    // A server of its own, so its provider directory includes D's provider from the start.
    const server = await startServer(parseConfig(testEnv({ ...process.env })), { port: 0, host: "127.0.0.1" });
    try {
      await expectRefused(tokens.id, "TOKEN_TYPE", server.url);
      // Organisation A's people are untouched by D's provider: Ana's real access token still works there.
      const ana = await providerAccessToken(provider.issuer, app, people.ana.email, "ana's password");
      expect((await me(ana, server.url)).body.user).to.include({ id: people.ana.id, org_id: people.ana.orgId });
    } finally {
      await Promise.race([server.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
  });

  it("refuses wrong issuers, unknown subjects and deactivated people, each with its code", async () => {
    await expectRefused(await signed(people.ana.sub, { iss: "https://idp.attacker.example" }), "TOKEN_ISSUER_UNKNOWN");
    await expectRefused(await signed(`nobody-${randomUUID()}`), "TOKEN_NOT_LINKED");
    await db()("users").where({ id: people.ines.id }).update({ is_active: false });
    try {
      await expectRefused(await signed(people.ines.sub), "ACCOUNT_INACTIVE");
    } finally {
      await db()("users").where({ id: people.ines.id }).update({ is_active: true });
    }
    expect((await me(await signed(people.ines.sub))).status).to.equal(200);
  });

  it("refuses expired tokens, an iat in the future and a lifetime over JWT_MAX_TTL_SECONDS", async () => {
    const max = stack.config.auth.JWT_MAX_TTL_SECONDS;
    await expectRefused(await signed(people.ana.sub, { iat: now() - 600, exp: now() - 60 }), "TOKEN_EXPIRED");
    await expectRefused(await signed(people.ana.sub, { iat: now() + 3_600, exp: now() + 3_900 }), "TOKEN_LIFETIME");
    await expectRefused(await signed(people.ana.sub, { exp: now() + max + 60 }), "TOKEN_LIFETIME");
    await expectRefused(await signed(people.ana.sub, { exp: undefined }), "TOKEN_INVALID");
    await expectRefused(await signed(people.ana.sub, { iat: undefined }), "TOKEN_INVALID");
  });

  it("refuses alg none, HS256 keyed with the client secret or the JWKS's public key, and a signature from another key", async () => {
    const kid = JSON.parse(new TextDecoder().decode(base64url.decode((await signed(people.ana.sub)).split(".")[0]!))).kid as string;
    const claims = { iss: provider.issuer, aud: provider.apiAudience, sub: people.ana.sub, iat: now(), exp: now() + 300 };
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    await expectRefused(`${encode({ alg: "none", kid })}.${encode(claims)}.`, "TOKEN_ALGORITHM");
    const hs256 = (secret: string) => new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid }).sign(new TextEncoder().encode(secret));
    await expectRefused(await hs256(app.clientSecret), "TOKEN_ALGORITHM");
    const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const { keys } = (await (await fetch(discovery.jwks_uri)).json()) as { keys: JWK[] };
    const published = keys.find((key) => key.kid === kid)!;
    const pem = createPublicKey({ key: published as never, format: "jwk" })
      .export({ type: "spki", format: "pem" })
      .toString();
    await expectRefused(await hs256(pem), "TOKEN_ALGORITHM");
    await expectRefused(await hs256(JSON.stringify(published)), "TOKEN_ALGORITHM");
    // RS256 with the provider's kid but a key of our own: the signature does not verify.
    const { privateKey } = testRsaKeyPair();
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).sign(privateKey);
    await expectRefused(forged, "TOKEN_INVALID");
  });

  it("fetches the JWKS at most once per cooldown for 200 tokens with random kids, and answers others promptly meanwhile", async function () {
    this.timeout(60_000);
    const { privateKey } = testRsaKeyPair();
    const key = await importJWK(privateKey.export({ format: "jwk" }) as JWK, "RS256");
    const claims = { iss: provider.issuer, aud: provider.apiAudience, sub: people.ana.sub, iat: now(), exp: now() + 300 };
    const flood = await Promise.all(Array.from({ length: 200 }, () => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: randomUUID() }).sign(key)));
    const valid = await signed(people.ana.sub);
    const before = stack.server.deps.tokens.providerFetchCounts(provider.issuer);
    const started = performance.now();
    const codes: string[] = [];
    const latencies: number[] = [];
    for (let batch = 0; batch < flood.length; batch += 20) {
      const probe = (async () => {
        const at = performance.now();
        expect((await me(valid)).status).to.equal(200);
        latencies.push(performance.now() - at);
      })();
      const answers = await Promise.all(flood.slice(batch, batch + 20).map((token) => me(token)));
      codes.push(...answers.map((answer) => answer.body.error.code as string));
      await probe;
    }
    const elapsedMs = performance.now() - started;
    const after = stack.server.deps.tokens.providerFetchCounts(provider.issuer);
    const fetched = after.jwks - before.jwks;
    console.log(
      `      200 random-kid tokens in ${Math.round(elapsedMs)} ms: ${fetched} JWKS fetch(es) (cooldown ${stack.config.auth.OIDC_JWKS_COOLDOWN_SECONDS} s); ` +
        `valid requests meanwhile: max ${Math.round(Math.max(...latencies))} ms`,
    );
    expect(new Set(codes)).to.deep.equal(new Set(["TOKEN_KEY_UNKNOWN"]));
    expect(fetched).to.be.at.most(Math.ceil(elapsedMs / 1000 / stack.config.auth.OIDC_JWKS_COOLDOWN_SECONDS));
    expect(Math.max(...latencies)).to.be.below(2_000);
  });

  it("connects a socket with a provider token and refuses one with a bad token, saying why", async () => {
    const socket = await connect(stack.baseUrl, await signed(people.ana.sub));
    sockets.push(socket);
    expect(socket.connected).to.equal(true);
    const refusal = (token: string) =>
      connect(stack.baseUrl, token).then(
        (socket) => void socket.disconnect(),
        (error: { data?: unknown }) => error.data,
      );
    expect(await refusal(await signed(people.ana.sub, { aud: "urn:someone-else:api" }))).to.deep.equal({ code: "UNAUTHORIZED", reason: "TOKEN_AUDIENCE" });
    expect(await refusal(await signed(`nobody-${randomUUID()}`))).to.deep.equal({ code: "UNAUTHORIZED", reason: "TOKEN_NOT_LINKED" });
    // Our own tokens are refused as they always were.
    expect(await refusal("not-a-token")).to.deep.equal({ code: "UNAUTHORIZED" });
  });

  it("logs no token: a refusal's line names the issuer, kid, alg and code only", async () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const log = { info: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) } as unknown as Logger;
    const verifier = new ProviderTokens(
      db(),
      { maxTtlSeconds: 3_600, httpTimeoutMs: 2_000, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, http: outboundClientOf(stack.config) },
      log,
    );
    const unlinked = await signed(`nobody-${randomUUID()}`);
    const wrongAudience = await signed(people.ana.sub, { aud: "urn:someone-else:api" });
    for (const token of [unlinked, wrongAudience]) {
      const route = routeToken(token, stack.config.auth.JWT_ISSUER);
      expect(route.to).to.equal("provider");
      if (route.to === "provider") expect((await verifier.verify(token, route)).ok).to.equal(false);
    }
    expect(lines.map((line) => line.fields.code)).to.deep.equal(["TOKEN_NOT_LINKED", "TOKEN_AUDIENCE"]);
    for (const line of lines) expect(Object.keys(line.fields).sort()).to.deep.equal(["alg", "code", "issuer", "kid"]);
    const written = JSON.stringify(lines);
    for (const token of [unlinked, wrongAudience]) for (const part of token.split(".")) expect(written).to.not.include(part);
  });

  describe("key rotation and an outage, on a server with a 1 s JWKS cooldown", () => {
    let rotating: TestIdentityProvider;
    let server: RunningServer;
    let carla: { sub: string; id: string };
    const sign = (claims: Record<string, unknown> = {}) =>
      rotating.sign({ iss: rotating.issuer, aud: rotating.apiAudience, sub: carla.sub, iat: now(), exp: now() + 300, ...claims });
    const status = async (token: string) => {
      const response = await me(token, server.url);
      return response.status === 200 ? 200 : (response.body.error.code as string);
    };
    /** Polls until the token gets `want` (the cache refreshes on its own schedule), within `ms`. */
    async function eventually(token: string, want: number | string, ms: number): Promise<number> {
      const started = Date.now();
      let got = await status(token);
      while (got !== want && Date.now() - started < ms) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        got = await status(token);
      }
      expect(got).to.equal(want);
      return Date.now() - started;
    }

    before(async function () {
      this.timeout(90_000);
      rotating = await startTestIdentityProvider({ clients: [] });
      const orgC = await organisation("IdP Gamma");
      const providerC = await storeIdentityProvider(db(), orgC, providerSettings(rotating.issuer, "client-c", rotating.apiAudience));
      const linked = await person(orgC, `carla-${randomUUID().slice(0, 6)}`, rotating.issuer, providerC.id);
      carla = { sub: linked.sub, id: linked.id };
      server = await startServer(
        parseConfig(testEnv({ ...process.env, OIDC_JWKS_COOLDOWN_SECONDS: "1", OIDC_JWKS_MAX_AGE_SECONDS: "2", OIDC_HTTP_TIMEOUT_MS: "800" })),
        { port: 0, host: "127.0.0.1" },
      );
    });
    after(async () => {
      await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await rotating?.stop();
    });

    it("a new kid is fetched once and works; a key the provider dropped is refused once the cache refreshes", async () => {
      const old = await sign();
      expect(await status(old)).to.equal(200);
      await rotating.rotateKeys(true);
      const fresh = await sign();
      // Within the cooldown the new kid is unknown; after it, one refetch finds it.
      const waited = await eventually(fresh, 200, 5_000);
      expect(waited).to.be.below(3_000);
      expect(await status(old)).to.equal(200);
      await rotating.rotateKeys(false);
      const newest = await sign();
      expect(await eventually(newest, 200, 5_000)).to.be.below(3_000);
      // The dropped key still verifies from the cache until its age (2 s) runs out, then never again.
      expect(await eventually(old, "TOKEN_KEY_UNKNOWN", 6_000)).to.be.below(4_000);
    });

    it("keeps 200 random-kid tokens over ~3 s to one JWKS fetch per cooldown", async function () {
      this.timeout(30_000);
      const { privateKey } = testRsaKeyPair();
      const claims = { iss: rotating.issuer, aud: rotating.apiAudience, sub: carla.sub, iat: now(), exp: now() + 300 };
      const flood = await Promise.all(
        Array.from({ length: 200 }, () => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: randomUUID() }).sign(privateKey)),
      );
      const before = server.deps.tokens.providerFetchCounts(rotating.issuer);
      const started = performance.now();
      for (let batch = 0; batch < flood.length; batch += 20) {
        const codes = await Promise.all(flood.slice(batch, batch + 20).map(status));
        expect(new Set(codes)).to.deep.equal(new Set(["TOKEN_KEY_UNKNOWN"]));
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const elapsedMs = performance.now() - started;
      const fetched = server.deps.tokens.providerFetchCounts(rotating.issuer).jwks - before.jwks;
      console.log(`      200 random-kid tokens over ${Math.round(elapsedMs)} ms: ${fetched} JWKS fetch(es) (cooldown 1 s)`);
      expect(fetched).to.be.at.least(1);
      expect(fetched).to.be.at.most(Math.ceil(elapsedMs / 1000) + 1);
    });

    it("answers 401 within OIDC_HTTP_TIMEOUT_MS while the provider hangs, and does not ask it again within the cooldown", async function () {
      this.timeout(30_000);
      const token = await sign();
      expect(await status(token)).to.equal(200);
      await rotating.hang(20_000);
      try {
        // Once the cached keys are 2 s old they must be fetched again: the provider does not answer.
        await new Promise((resolve) => setTimeout(resolve, 2_100));
        const before = server.deps.tokens.providerFetchCounts(rotating.issuer);
        let at = performance.now();
        expect(await status(token)).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
        const firstMs = performance.now() - at;
        at = performance.now();
        expect(await status(token)).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
        const secondMs = performance.now() - at;
        const after = server.deps.tokens.providerFetchCounts(rotating.issuer);
        expect(firstMs).to.be.within(700, 2_500);
        expect(secondMs).to.be.below(500);
        expect(after.discovery - before.discovery).to.equal(1);
        expect(after.failures - before.failures).to.equal(1);
      } finally {
        await rotating.hang(0);
      }
      expect(await eventually(token, 200, 5_000)).to.be.below(3_000);
    });
  });
});
