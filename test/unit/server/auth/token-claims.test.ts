/**
 * The pure parts of checking an identity provider's token: routing by the unverified `iss`, the
 * algorithm allow-list, audiences, the life bound, jose failures as our codes; and the JWKS
 * refetch bound of ProviderKeys with a scripted clock and HTTP client (no network).
 */
import { randomUUID } from "node:crypto";
import { testRsaKeyPair } from "../../../harness/test-keys";
import { expect } from "chai";
import { SignJWT, base64url, errors, exportJWK, jwtVerify, type JWK } from "jose";
import { OutboundFailure, type OutboundClient } from "../../../../lib/outbound/client";
import { ProviderKeys } from "../../../../server/auth/provider-keys";
import {
  apiAudienceOf,
  audienceIncludes,
  isProviderAlgorithm,
  lifetimeRefusal,
  refusalOfJoseError,
  routeToken,
  ProviderUnavailable,
} from "../../../../server/auth/token-claims";

const ISSUER = "https://idp.example.com/tenant";
const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
const unsigned = (header: unknown, payload: unknown) => `${encode(header)}.${encode(payload)}.c2ln`;

describe("identity-provider token claims (pure)", () => {
  it("routes by the unverified iss: ours or none to our own check, any other to the provider check", () => {
    expect(routeToken(unsigned({ alg: "HS256" }, { iss: "skillnet-chat", sub: "x" }), "skillnet-chat")).to.deep.equal({ to: "own" });
    expect(routeToken(unsigned({ alg: "HS256" }, { sub: "x" }), "skillnet-chat")).to.deep.equal({ to: "own" });
    expect(routeToken(unsigned({ alg: "RS256", kid: "k1" }, { iss: ISSUER }), "skillnet-chat")).to.deep.equal({
      to: "provider",
      issuer: ISSUER,
      alg: "RS256",
      kid: "k1",
    });
    expect(routeToken(unsigned({ alg: "none" }, { iss: ISSUER }), "skillnet-chat")).to.deep.include({ to: "provider", alg: "none", kid: undefined });
    for (const junk of ["", "a.b", "not-a-token", `${encode({ alg: "RS256" })}.%%%.x`])
      expect(routeToken(junk, "skillnet-chat")).to.deep.equal({ to: "malformed" });
  });

  it("allows RS256, ES256 and EdDSA only", () => {
    for (const alg of ["RS256", "ES256", "EdDSA"]) expect(isProviderAlgorithm(alg), alg).to.equal(true);
    for (const alg of ["none", "HS256", "HS384", "HS512", "PS256", "RS512", "", "rs256"]) expect(isProviderAlgorithm(alg), alg).to.equal(false);
  });

  it("takes the API audience, else the client id; aud may be a string or a list", () => {
    expect(apiAudienceOf({ api_audience: "urn:api", client_id: "c" })).to.equal("urn:api");
    expect(apiAudienceOf({ api_audience: null, client_id: "c" })).to.equal("c");
    expect(audienceIncludes("c", "c")).to.equal(true);
    expect(audienceIncludes(["x", "c"], "c")).to.equal(true);
    expect(audienceIncludes(["x"], "c")).to.equal(false);
    expect(audienceIncludes(undefined, "c")).to.equal(false);
  });

  it("bounds the lifetime and refuses an iat in the future", () => {
    expect(lifetimeRefusal({ iat: 1_000, exp: 1_600 }, 3_600, 1_000)).to.equal(null);
    expect(lifetimeRefusal({ iat: 1_000, exp: 1_000 + 3_601 }, 3_600, 1_000)).to.equal("TOKEN_LIFETIME");
    expect(lifetimeRefusal({ iat: 1_004, exp: 1_600 }, 3_600, 1_000)).to.equal(null);
    expect(lifetimeRefusal({ iat: 1_010, exp: 1_600 }, 3_600, 1_000)).to.equal("TOKEN_LIFETIME");
  });

  it("reads jose's failures as our codes", async () => {
    const key = new TextEncoder().encode("a shared secret of some length");
    const at = Math.floor(Date.now() / 1000);
    const fail = async (claims: Record<string, unknown>, options: Parameters<typeof jwtVerify>[2]) => {
      const token = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(key);
      return jwtVerify(token, key, options).then(
        () => "accepted",
        (error) => refusalOfJoseError(error),
      );
    };
    expect(await fail({ exp: at - 10 }, {})).to.equal("TOKEN_EXPIRED");
    expect(await fail({ aud: "x", exp: at + 60 }, { audience: "y" })).to.equal("TOKEN_AUDIENCE");
    expect(await fail({ iss: "a", exp: at + 60 }, { issuer: "b" })).to.equal("TOKEN_ISSUER_UNKNOWN");
    expect(await fail({ exp: at + 60 }, { requiredClaims: ["iat"] })).to.equal("TOKEN_INVALID");
    expect(await fail({ exp: at + 60 }, { algorithms: ["RS256"] })).to.equal("TOKEN_ALGORITHM");
    expect(refusalOfJoseError(new errors.JWKSNoMatchingKey())).to.equal("TOKEN_KEY_UNKNOWN");
    expect(refusalOfJoseError(new errors.JWKSTimeout())).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    expect(refusalOfJoseError(new ProviderUnavailable(ISSUER, "down"))).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    expect(refusalOfJoseError(new Error("anything"))).to.equal("TOKEN_INVALID");
  });
});

/** The outbound client's request, answering each URL with the JSON `answer` gives (or its failure). */
function scriptedHttp(answer: (url: string) => unknown): Pick<OutboundClient, "request"> {
  return {
    request: async (url) => ({ status: 200, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify(answer(String(url)))) }),
  };
}

describe("ProviderKeys: at most one fetch per issuer per cooldown", () => {
  const COOLDOWN = 30_000;
  const MAX_AGE = 600_000;

  async function keyPair() {
    const { privateKey, publicKey } = testRsaKeyPair();
    const kid = randomUUID();
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } as JWK };
  }

  /** A scripted provider: its discovery document and JWKS, a request log, and an outage switch. */
  function scriptedProvider(published: JWK[]) {
    const state = { published, down: false, requests: [] as string[] };
    const fetcher = scriptedHttp((url) => {
      state.requests.push(new URL(url).pathname);
      if (state.down) throw new OutboundFailure("timeout", "timed out");
      if (url.endsWith("/.well-known/openid-configuration")) return { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` };
      return { keys: state.published };
    });
    return { state, fetcher };
  }

  const tokenOf = (pair: { kid: string; privateKey: Parameters<SignJWT["sign"]>[0] }, kid = pair.kid) =>
    new SignJWT({ sub: "s" }).setProtectedHeader({ alg: "RS256", kid }).sign(pair.privateKey);

  async function verifies(keys: ProviderKeys, token: string): Promise<string> {
    return jwtVerify(token, keys.forIssuer(ISSUER), { algorithms: ["RS256"] }).then(
      () => "ok",
      (error) => refusalOfJoseError(error),
    );
  }

  it("a flood of unknown kids costs one fetch per cooldown; a rotated key is found after it; a dropped one is refused at the cache's age", async () => {
    const first = await keyPair();
    const { state, fetcher } = scriptedProvider([first.jwk]);
    let clock = 1_000_000;
    const keys = new ProviderKeys({ httpTimeoutMs: 1_000, cooldownMs: COOLDOWN, maxAgeMs: MAX_AGE, now: () => clock, http: fetcher });
    expect(await verifies(keys, await tokenOf(first))).to.equal("ok");
    expect(keys.fetchCounts(ISSUER)).to.deep.equal({ discovery: 1, jwks: 1, failures: 0 });

    // 1,000 random kids within the cooldown: no request at all.
    for (let i = 0; i < 1_000; i += 1) {
      // Unsigned is enough: the key is looked up before any signature is checked.
      expect(await verifies(keys, unsigned({ alg: "RS256", kid: randomUUID() }, { sub: "s" }))).to.equal("TOKEN_KEY_UNKNOWN");
      clock += 10; // 10 s in all, still within the 30 s cooldown
    }
    expect(keys.fetchCounts(ISSUER).jwks).to.equal(1);
    // Past the cooldown the next unknown kid refetches once; the rest of the burst does not.
    clock += COOLDOWN;
    for (let i = 0; i < 100; i += 1) await verifies(keys, unsigned({ alg: "RS256", kid: randomUUID() }, { sub: "s" }));
    expect(keys.fetchCounts(ISSUER).jwks).to.equal(2);

    // Rotation: the provider publishes a new key beside the old one.
    const second = await keyPair();
    state.published = [second.jwk, first.jwk];
    expect(await verifies(keys, await tokenOf(second))).to.equal("TOKEN_KEY_UNKNOWN"); // within the cooldown
    clock += COOLDOWN;
    expect(await verifies(keys, await tokenOf(second))).to.equal("ok");
    expect(await verifies(keys, await tokenOf(first))).to.equal("ok");
    expect(keys.fetchCounts(ISSUER).jwks).to.equal(3);

    // The old key dropped: still cached until the cache's age, then refused.
    state.published = [second.jwk];
    expect(await verifies(keys, await tokenOf(first))).to.equal("ok");
    clock += MAX_AGE;
    expect(await verifies(keys, await tokenOf(first))).to.equal("TOKEN_KEY_UNKNOWN");
    expect(await verifies(keys, await tokenOf(second))).to.equal("ok");
    expect(keys.fetchCounts(ISSUER).jwks).to.equal(4);
  });

  it("a provider that fails is asked once per cooldown, and a stale cache is not trusted meanwhile", async () => {
    const only = await keyPair();
    const { state, fetcher } = scriptedProvider([only.jwk]);
    let clock = 5_000_000;
    const keys = new ProviderKeys({ httpTimeoutMs: 1_000, cooldownMs: COOLDOWN, maxAgeMs: MAX_AGE, now: () => clock, http: fetcher });
    state.down = true;
    for (let i = 0; i < 50; i += 1) expect(await verifies(keys, await tokenOf(only))).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    expect(state.requests).to.have.length(1);
    clock += COOLDOWN;
    state.down = false;
    expect(await verifies(keys, await tokenOf(only))).to.equal("ok");
    // Down again once the keys are old: one attempt, then refusals without requests until the cooldown passes.
    state.down = true;
    clock += MAX_AGE;
    const before = state.requests.length;
    for (let i = 0; i < 50; i += 1) expect(await verifies(keys, await tokenOf(only))).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    expect(state.requests.length - before).to.equal(1);
    expect(keys.fetchCounts(ISSUER).failures).to.equal(2);
  });

  it("refuses a discovery document that names another issuer", async () => {
    const only = await keyPair();
    const fetcher = scriptedHttp(() => ({ issuer: "https://elsewhere.example", jwks_uri: `${ISSUER}/jwks` }));
    const keys = new ProviderKeys({ httpTimeoutMs: 1_000, cooldownMs: COOLDOWN, maxAgeMs: MAX_AGE, http: fetcher });
    expect(await verifies(keys, await tokenOf(only))).to.equal("TOKEN_PROVIDER_UNAVAILABLE");
    expect(keys.fetchCounts(ISSUER)).to.deep.include({ jwks: 0, failures: 1 });
  });
});
