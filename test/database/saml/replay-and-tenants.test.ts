/**
 * What one SAML assertion can do beyond its own sign-in: nothing. Replayed to a second server
 * process (its own Redis connection, as another node would have), or to both at once, it signs in
 * once; made for organisation B's service provider, it signs nobody in at organisation A's ACS,
 * even when both organisations use the same IdP, and leaves A's verified domains as they were.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { databaseSuite } from "../../support/database";
import { base64, TestIdp } from "../../support/saml-idp";
import { postToAcs, type SamlApp, samlProviderFor, startSamlApp, startSignIn } from "./helpers";

describe("SAML: replay refused across processes; one organisation's provider cannot sign in to another", function () {
  const lane = databaseSuite(this);
  const idp = new TestIdp();
  let first: SamlApp;
  let second: SamlApp;

  before(async () => {
    first = await startSamlApp(lane);
    second = await startSamlApp(lane);
  });
  after(async () => {
    await first?.close();
    await second?.close();
  });

  it("accepts an IdP-initiated assertion once when allowed: refused when replayed to a second process, and one of two concurrent posts wins", async () => {
    const orgId = (await lane.build.buildOrg()).id;
    const domain = `idpinit-${randomUUID().slice(0, 8)}.example`;
    const provider = await samlProviderFor(lane, orgId, idp, { domain, allowIdpInitiated: true });
    const spec = (email: string) => ({
      nameId: `n-${randomUUID()}`,
      attributes: { email },
      audience: provider.sp.entityId,
      recipient: provider.sp.acs,
      inResponseTo: null,
    });
    const response = base64(idp.signedResponse(spec(`first@${domain}`)));
    const signedIn = await postToAcs(first, provider.id, response, "https://evil.example/steal");
    expect(signedIn.status).to.equal(303);
    expect(signedIn.location, "RelayState outside our paths lands on the tutor").to.equal("/");
    const replayed = await postToAcs(second, provider.id, response);
    expect(replayed.code).to.equal("SIGN_IN_REPLAYED");
    expect(replayed.cookies.filter((cookie) => cookie.startsWith("skillnet_refresh="))).to.deep.equal([]);

    const raced = base64(idp.signedResponse(spec(`second@${domain}`)));
    const answers = await Promise.all([postToAcs(first, provider.id, raced), postToAcs(second, provider.id, raced)]);
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([303, 400]);
    expect(answers.map((answer) => answer.code).filter(Boolean)).to.deep.equal(["SIGN_IN_REPLAYED"]);
    expect(Number((await lane.db("refresh_tokens").where({ provider_id: provider.id }).count("* as n"))[0]!.n)).to.equal(2);
  });

  it("refuses at organisation A's ACS an assertion the shared IdP made for organisation B, and B's provider cannot sign in A's domain", async () => {
    const [a, b] = await lane.build.buildOrgsWithAdmins(2);
    const domainA = `a-${randomUUID().slice(0, 8)}.example`;
    const domainB = `b-${randomUUID().slice(0, 8)}.example`;
    const providerA = await samlProviderFor(lane, a!.org.id, idp, { domain: domainA });
    const providerB = await samlProviderFor(lane, b!.org.id, idp, { domain: domainB, allowIdpInitiated: true });
    const domainsOfA = await lane.db("organisation_domains").where({ org_id: a!.org.id }).orderBy("domain").select("domain", "status");
    const usersOfA = await lane.db("users").where({ org_id: a!.org.id }).count("* as n");

    // Made for B's SP, answering a request B sent, about someone in A's domain.
    const { requestId } = await startSignIn(first, providerB.id);
    const forB = idp.signedResponse({
      nameId: `x-${randomUUID()}`,
      attributes: { email: `${a!.admin.email.split("@")[0]}@${domainA}` },
      audience: providerB.sp.entityId,
      recipient: providerB.sp.acs,
      inResponseTo: requestId,
    });
    const atA = await postToAcs(first, providerA.id, base64(forB));
    expect(atA.code).to.equal("SIGN_IN_REJECTED");

    // At B's own ACS, B's provider may not sign in an address of A's domain.
    const atB = await postToAcs(first, providerB.id, base64(forB));
    expect(atB.code).to.equal("DOMAIN_NOT_ALLOWED");
    const unsolicited = idp.signedResponse({
      nameId: `y-${randomUUID()}`,
      attributes: { email: `someone@${domainA}` },
      audience: providerB.sp.entityId,
      recipient: providerB.sp.acs,
      inResponseTo: null,
    });
    expect((await postToAcs(first, providerB.id, base64(unsolicited))).code).to.equal("DOMAIN_NOT_ALLOWED");

    expect(await lane.db("organisation_domains").where({ org_id: a!.org.id }).orderBy("domain").select("domain", "status")).to.deep.equal(domainsOfA);
    expect(await lane.db("users").where({ org_id: a!.org.id }).count("* as n")).to.deep.equal(usersOfA);
    expect(await lane.db("identity_links").whereIn("org_id", [a!.org.id, b!.org.id]).count("* as n")).to.deep.equal([{ n: "0" }]);
  });
});
