/**
 * The ACS against hostile SAML responses, on the real handler with PostgreSQL and Redis: each is
 * refused on the sign-in failure page with its code, sets no cookie, and creates no person,
 * identity link or refresh token. A well-formed one (plain or encrypted) signs in, so the
 * refusals are the checks' doing, not a set-up that refuses everything.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { selfSignedKeyPair } from "../../../lib/self-signed-certificate";
import { databaseSuite } from "../../support/database";
import { type AssertionSpec, base64, TestIdp } from "../../support/saml-idp";
import { type AcsAnswer, postToAcs, type SamlApp, samlProviderFor, startSamlApp, startSignIn } from "./helpers";

describe("SAML ACS: hostile assertions are refused, nothing signed in", function () {
  const lane = databaseSuite(this);
  const idp = new TestIdp();
  let app: SamlApp;
  let orgId: string;
  let provider: Awaited<ReturnType<typeof samlProviderFor>>;
  const domain = `saml-${randomUUID().slice(0, 8)}.example`;

  before(async () => {
    orgId = (await lane.build.buildOrg()).id;
    provider = await samlProviderFor(lane, orgId, idp, { domain });
    app = await startSamlApp(lane);
  });
  after(async () => app?.close());

  const counts = async () => ({
    users: Number((await lane.db("users").where({ org_id: orgId }).count("* as n"))[0]!.n),
    links: Number((await lane.db("identity_links").where({ org_id: orgId }).count("* as n"))[0]!.n),
    refresh: Number((await lane.db("refresh_tokens").where({ org_id: orgId }).count("* as n"))[0]!.n),
  });

  const spec = (requestId: string | null, overrides: Partial<AssertionSpec> = {}): AssertionSpec => ({
    nameId: `id-${randomUUID()}`,
    attributes: { email: `p${randomUUID().slice(0, 6)}@${domain}`, name: "Pat Person", groups: ["staff"] },
    audience: provider.sp.entityId,
    recipient: provider.sp.acs,
    inResponseTo: requestId,
    ...overrides,
  });

  async function expectRefused(answer: AcsAnswer, code: string, before: Awaited<ReturnType<typeof counts>>, why?: RegExp): Promise<void> {
    expect(answer.code, `refusal code (status ${answer.status})`).to.equal(code);
    if (why) expect(app.refusals.at(-1), "the logged reason").to.match(why);
    expect(answer.status).to.be.within(400, 499);
    expect(answer.cookies.filter((cookie) => cookie.startsWith("skillnet_refresh="))).to.deep.equal([]);
    expect(await counts()).to.deep.equal(before);
  }

  it("signs in a just-in-time employee with a signed assertion answering our request, then refuses the same response again", async () => {
    const before = await counts();
    const { requestId, location } = await startSignIn(app, provider.id);
    expect(location.origin + location.pathname).to.equal(`${idp.entityId}/sso`);
    expect(location.searchParams.get("Signature"), "the AuthnRequest is signed").to.be.a("string");
    const response = base64(idp.signedResponse(spec(requestId)));
    const answer = await postToAcs(app, provider.id, response, "/admin");
    expect(answer.status).to.equal(303);
    expect(answer.location).to.equal("/admin");
    expect(answer.cookies.some((cookie) => cookie.startsWith("skillnet_refresh="))).to.equal(true);
    expect(await counts()).to.deep.equal({ users: before.users + 1, links: before.links + 1, refresh: before.refresh + 1 });
    const link = await lane.db("identity_links").where({ org_id: orgId, provider_id: provider.id }).first();
    expect(link.issuer).to.equal(idp.entityId);
    await expectRefused(await postToAcs(app, provider.id, response), "SIGN_IN_REJECTED", await counts());
  });

  it("accepts an encrypted signed assertion", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    const answer = await postToAcs(app, provider.id, base64(idp.encryptedResponse(spec(requestId), provider.sp_certificate!)));
    expect(answer.status, String(answer.code)).to.equal(303);
  });

  it("refuses an unsigned assertion", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    const unsigned = idp.response(idp.assertionXml(spec(requestId)), { destination: provider.sp.acs, inResponseTo: requestId });
    await expectRefused(await postToAcs(app, provider.id, base64(unsigned)), "SIGN_IN_REJECTED", await counts(), /signature/i);
  });

  it("refuses an assertion signed by another key, and a signed response around an unsigned assertion", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    const stranger = selfSignedKeyPair(idp.entityId);
    const forged = idp.response(idp.sign(idp.assertionXml(spec(requestId)), "Assertion", stranger), { destination: provider.sp.acs, inResponseTo: requestId });
    await expectRefused(await postToAcs(app, provider.id, base64(forged)), "SIGN_IN_REJECTED", await counts(), /signature/i);
    const second = await startSignIn(app, provider.id);
    const responseOnly = idp.sign(
      idp.response(idp.assertionXml(spec(second.requestId)), { destination: provider.sp.acs, inResponseTo: second.requestId }),
      "Response",
    );
    await expectRefused(await postToAcs(app, provider.id, base64(responseOnly)), "SIGN_IN_REJECTED", await counts(), /signature/i);
  });

  it("refuses signature wrapping: a forged assertion beside the signed one, and the signed one moved inside a forged one", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    const genuine = spec(requestId);
    const signed = idp.sign(idp.assertionXml(genuine), "Assertion");
    const forged = idp.assertionXml({ ...genuine, nameId: "admin-victim", attributes: { email: `victim@${domain}`, groups: ["admins"] } });
    const beside = idp.response(forged + signed, { destination: provider.sp.acs, inResponseTo: requestId });
    await expectRefused(await postToAcs(app, provider.id, base64(beside)), "SIGN_IN_REJECTED", await counts(), /multiple assertions/);
    // The signed assertion hidden inside the forged one (which keeps the signed one's ID, so the reference still resolves).
    const signedId = /ID="([^"]+)"/.exec(signed)![1]!;
    const wrapper = forged.replace(/ID="[^"]+"/, `ID="${signedId}"`).replace("</saml:Assertion>", `${signed}</saml:Assertion>`);
    const again = await startSignIn(app, provider.id);
    const nested = idp.response(wrapper.replace(requestId, again.requestId), { destination: provider.sp.acs, inResponseTo: again.requestId });
    await expectRefused(await postToAcs(app, provider.id, base64(nested)), "SIGN_IN_REJECTED", await counts(), /signature/i);
  });

  it("refuses an expired assertion, one for another audience, and one for another Destination or Recipient", async () => {
    const cases: Array<[string, (id: string) => string, RegExp]> = [
      ["expired", (id) => idp.signedResponse(spec(id, { notBefore: -900, notOnOrAfter: -120 })), /expired|No valid subject confirmation/],
      ["audience", (id) => idp.signedResponse(spec(id, { audience: "https://elsewhere.example/sp" })), /audience mismatch/],
      ["recipient", (id) => idp.signedResponse(spec(id, { recipient: "https://elsewhere.example/acs", destination: provider.sp.acs })), /Recipient/],
      ["destination", (id) => idp.signedResponse(spec(id, { destination: "https://elsewhere.example/acs" })), /Destination/],
    ];
    for (const [name, build, why] of cases) {
      const { requestId } = await startSignIn(app, provider.id);
      const answer = await postToAcs(app, provider.id, base64(build(requestId)));
      expect(answer.code, name).to.equal("SIGN_IN_REJECTED");
      expect(app.refusals.at(-1), name).to.match(why);
      expect(
        answer.cookies.filter((cookie) => cookie.startsWith("skillnet_refresh=")),
        name,
      ).to.deep.equal([]);
    }
  });

  it("refuses an InResponseTo we never sent, also when only the signed assertion names it", async () => {
    const before = await counts();
    await expectRefused(await postToAcs(app, provider.id, base64(idp.signedResponse(spec("_never-sent")))), "SIGN_IN_REJECTED", before, /InResponseTo/);
    const onlyInAssertion = idp.response(idp.sign(idp.assertionXml(spec("_never-sent-either")), "Assertion"), { destination: provider.sp.acs });
    await expectRefused(await postToAcs(app, provider.id, base64(onlyInAssertion)), "SIGN_IN_REJECTED", before, /request we did not send/);
  });

  it("refuses an IdP-initiated signed assertion wrapped in a Response naming a request id we gave out, every time", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    for (let attempt = 0; attempt < 2; attempt++) {
      const wrapped = idp.response(idp.sign(idp.assertionXml(spec(null)), "Assertion"), { destination: provider.sp.acs, inResponseTo: requestId });
      const answer = await postToAcs(app, provider.id, base64(wrapped));
      await expectRefused(answer, "SIGN_IN_REJECTED", await counts(), /does not answer/);
    }
    const other = await startSignIn(app, provider.id);
    const mismatched = idp.response(idp.sign(idp.assertionXml(spec(other.requestId)), "Assertion"), { destination: provider.sp.acs, inResponseTo: requestId });
    await expectRefused(await postToAcs(app, provider.id, base64(mismatched)), "SIGN_IN_REJECTED", await counts(), /InResponseTo|does not answer/);
  });

  it("answers a request id once: a second signed assertion for it is refused, named in both or only in the assertion", async () => {
    const { requestId } = await startSignIn(app, provider.id);
    expect((await postToAcs(app, provider.id, base64(idp.signedResponse(spec(requestId))))).status).to.equal(303);
    await expectRefused(await postToAcs(app, provider.id, base64(idp.signedResponse(spec(requestId)))), "SIGN_IN_REJECTED", await counts(), /InResponseTo/);
    const onlyInAssertion = idp.response(idp.sign(idp.assertionXml(spec(requestId)), "Assertion"), { destination: provider.sp.acs });
    await expectRefused(await postToAcs(app, provider.id, base64(onlyInAssertion)), "SIGN_IN_REJECTED", await counts(), /already answered/);
  });

  it("refuses an IdP-initiated response while the provider does not allow it", async () => {
    await expectRefused(await postToAcs(app, provider.id, base64(idp.signedResponse(spec(null)))), "SIGN_IN_IDP_INITIATED_OFF", await counts());
  });

  it("refuses a person deactivated since their last sign-in (as a SCIM deactivation leaves them), linked or by email", async () => {
    const nameId = `leaver-${randomUUID()}`;
    const email = `leaver${randomUUID().slice(0, 6)}@${domain}`;
    const first = await startSignIn(app, provider.id);
    const signedIn = await postToAcs(app, provider.id, base64(idp.signedResponse({ ...spec(first.requestId), nameId, attributes: { email } })));
    expect(signedIn.status).to.equal(303);
    await lane.db("users").where({ org_id: orgId, email }).update({ is_active: false });
    const again = await startSignIn(app, provider.id);
    const before = await counts();
    await expectRefused(
      await postToAcs(app, provider.id, base64(idp.signedResponse({ ...spec(again.requestId), nameId, attributes: { email } }))),
      "ACCOUNT_DEACTIVATED",
      before,
    );
  });

  it("refuses XML with a DOCTYPE (billion laughs) at once, before parsing it", async () => {
    const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("");
    const bomb = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "lol">${entities}]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&l10;</samlp:Response>`;
    const started = performance.now();
    await expectRefused(await postToAcs(app, provider.id, base64(bomb)), "SIGN_IN_MESSAGE_REFUSED", await counts());
    expect(performance.now() - started).to.be.below(500);
  });
});
