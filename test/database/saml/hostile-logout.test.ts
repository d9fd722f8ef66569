/**
 * Single logout against hostile HTTP-Redirect messages, on the real handler with PostgreSQL and
 * Redis: a LogoutRequest naming someone ends their sessions only when the IdP signed it (the
 * redirect binding's Signature) and issued it recently; a LogoutResponse only answers a logout we
 * sent, once; a deflate bomb or a DOCTYPE is refused before any parsing. The victim's refresh
 * token stays valid through every refusal, and a properly signed request does revoke it, so the
 * refusals are the checks' doing.
 */
import { expect } from "chai";
import { createSign, randomUUID } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import { type KeyPair, selfSignedKeyPair } from "../../../lib/self-signed-certificate";
import { SamlRequestCache } from "../../../server/auth/saml/request-cache";
import { databaseSuite } from "../../support/database";
import { base64, TestIdp } from "../../support/saml-idp";
import { postToAcs, type SamlApp, samlProviderFor, startSamlApp, startSignIn } from "./helpers";

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";

describe("SAML single logout: unsigned, stale, foreign-signed or unsolicited messages sign nobody out", function () {
  const lane = databaseSuite(this);
  const idp = new TestIdp();
  let app: SamlApp;
  let provider: Awaited<ReturnType<typeof samlProviderFor>>;
  const domain = `slo-${randomUUID().slice(0, 8)}.example`;
  const victim = { nameId: `victim-${randomUUID()}`, email: `victim${randomUUID().slice(0, 6)}@${domain}` };
  let victimId: string;

  before(async () => {
    const orgId = (await lane.build.buildOrg()).id;
    provider = await samlProviderFor(lane, orgId, idp, { domain });
    app = await startSamlApp(lane);
    const { requestId } = await startSignIn(app, provider.id);
    const signedIn = await postToAcs(
      app,
      provider.id,
      base64(
        idp.signedResponse({
          nameId: victim.nameId,
          attributes: { email: victim.email },
          audience: provider.sp.entityId,
          recipient: provider.sp.acs,
          inResponseTo: requestId,
        }),
      ),
    );
    expect(signedIn.status).to.equal(303);
    victimId = (await lane.db("users").where({ org_id: orgId, email: victim.email }).first()).id;
  });
  after(async () => app?.close());

  const liveTokens = async () => Number((await lane.db("refresh_tokens").where({ user_id: victimId }).whereNull("revoked_at").count("* as n"))[0]!.n);

  const logoutRequest = (issuedSecondsAgo = 0) =>
    `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_l${randomUUID().replace(/-/g, "")}" Version="2.0" IssueInstant="${new Date(Date.now() - issuedSecondsAgo * 1000).toISOString()}" Destination="${provider.sp.slo}"><saml:Issuer>${idp.entityId}</saml:Issuer><saml:NameID>${victim.nameId}</saml:NameID></samlp:LogoutRequest>`;

  const logoutResponse = (inResponseTo: string | null) =>
    `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, "")}" Version="2.0" IssueInstant="${new Date().toISOString()}"${inResponseTo ? ` InResponseTo="${inResponseTo}"` : ""}><saml:Issuer>${idp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`;

  /** The HTTP-Redirect binding's query, signed as the binding says (over SAMLRequest, RelayState, SigAlg as sent) when a key is given. */
  function redirectQuery(kind: "SAMLRequest" | "SAMLResponse", deflated: Buffer, signer?: KeyPair): string {
    const signed = `${kind}=${encodeURIComponent(deflated.toString("base64"))}&RelayState=%2F&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
    if (!signer) return `${kind}=${encodeURIComponent(deflated.toString("base64"))}&RelayState=%2F`;
    const signature = createSign("RSA-SHA256").update(signed).sign(signer.privateKeyPem, "base64");
    return `${signed}&Signature=${encodeURIComponent(signature)}`;
  }

  async function slo(query: string): Promise<{ status: number; code: string | null; location: string | null }> {
    const response = await fetch(`${app.url}/api/v1/auth/saml/${provider.id}/slo?${query}`, { redirect: "manual" });
    const html = await response.text();
    return { status: response.status, code: /<code id="code">([A-Z_]+)<\/code>/.exec(html)?.[1] ?? null, location: response.headers.get("location") };
  }

  async function expectRefused(query: string, code: string, why: RegExp): Promise<void> {
    const answer = await slo(query);
    expect(answer.code, `refusal code (status ${answer.status})`).to.equal(code);
    expect(answer.status).to.be.within(400, 499);
    expect(app.refusals.at(-1), "the logged reason").to.match(why);
    expect(await liveTokens(), "the victim is still signed in").to.equal(1);
  }

  const deflate = (xml: string) => deflateRawSync(Buffer.from(xml, "utf8"));

  it("refuses an unsigned LogoutRequest with the IdP's Issuer, one signed by another key, and a stale signed one", async () => {
    expect(await liveTokens()).to.equal(1);
    await expectRefused(redirectQuery("SAMLRequest", deflate(logoutRequest())), "SIGN_IN_REJECTED", /unsigned LogoutRequest/);
    const stranger = selfSignedKeyPair(idp.entityId);
    await expectRefused(redirectQuery("SAMLRequest", deflate(logoutRequest()), stranger), "SIGN_IN_REJECTED", /Invalid query signature/);
    await expectRefused(redirectQuery("SAMLRequest", deflate(logoutRequest(3600)), idp.keys), "SIGN_IN_REJECTED", /IssueInstant/);
  });

  it("refuses a deflate bomb and a DOCTYPE quickly, before parsing", async () => {
    const bomb = deflateRawSync(Buffer.alloc(10 * 1024 * 1024, "a"));
    expect(bomb.toString("base64").length, "fits the route's 16 KB parameter").to.be.below(16_384);
    const started = performance.now();
    await expectRefused(redirectQuery("SAMLRequest", bomb, idp.keys), "SIGN_IN_MESSAGE_REFUSED", /inflates past/);
    await expectRefused(redirectQuery("SAMLResponse", bomb), "SIGN_IN_MESSAGE_REFUSED", /inflates past/);
    expect(performance.now() - started).to.be.below(1000);
    const doctype = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "lol">]>${logoutRequest()}`;
    await expectRefused(redirectQuery("SAMLRequest", deflate(doctype), idp.keys), "SIGN_IN_MESSAGE_REFUSED", /document type/);
  });

  it("accepts a LogoutResponse only for a logout we sent, once", async () => {
    await expectRefused(redirectQuery("SAMLResponse", deflate(logoutResponse(null))), "SIGN_IN_REJECTED", /to no logout of ours/);
    await expectRefused(redirectQuery("SAMLResponse", deflate(logoutResponse("_never-sent"))), "SIGN_IN_REJECTED", /InResponseTo|did not send/);
    const ours = `_ours${randomUUID().replace(/-/g, "")}`;
    await new SamlRequestCache(lane.redis, provider.id).saveAsync(ours, new Date().toISOString());
    const answered = await slo(redirectQuery("SAMLResponse", deflate(logoutResponse(ours))));
    expect(answered.status).to.equal(303);
    expect(answered.location).to.equal("/");
    await expectRefused(redirectQuery("SAMLResponse", deflate(logoutResponse(ours))), "SIGN_IN_REJECTED", /InResponseTo|already answered/);
  });

  it("a LogoutRequest signed by the IdP signs the victim out and is answered with a signed LogoutResponse", async () => {
    const answer = await slo(redirectQuery("SAMLRequest", deflate(logoutRequest()), idp.keys));
    expect(answer.status, String(answer.code)).to.equal(302);
    const location = new URL(answer.location!);
    expect(location.origin + location.pathname).to.equal(`${idp.entityId}/slo`);
    expect(location.searchParams.get("SAMLResponse")).to.be.a("string");
    expect(location.searchParams.get("Signature")).to.be.a("string");
    expect(await liveTokens()).to.equal(0);
  });
});
