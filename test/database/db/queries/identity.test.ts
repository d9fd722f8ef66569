/**
 * The identity queries on real PostgreSQL, with two organisations sharing one issuer (a Google or
 * multi-tenant Entra app): each finds its own provider, links stay scoped to their organisation,
 * and the refresh family rules hold when tokens are spent concurrently.
 */
import { expect } from "chai";
import { approveDomain } from "../../../../commands/organisation-domains";
import { findIdentityLink, findIdentityProvidersByIssuer, findSignInProvidersByDomain } from "../../../../db/queries/identity";
import { deleteIdentityLinksOfUser, linkIdentity } from "../../../../db/queries/identity-link-writes";
import { issueRefreshToken, spendRefreshToken } from "../../../../db/queries/refresh-tokens";
import { databaseSuite } from "../../../support/database";
import { storeIdentityProvider, unique } from "../../../support/sso";

describe("db/queries identity and refresh tokens", function () {
  const lane = databaseSuite(this);
  const issuer = `https://accounts.shared-${unique()}.test`;

  async function orgWithProvider(domain: string) {
    const db = lane.db;
    const org = await lane.build.buildOrg();
    const user = await lane.build.buildPerson(org.id, { email: `p-${unique()}@${domain}`, name: "P" });
    const provider = await storeIdentityProvider(db, org.id, {
      display_name: "Shared",
      issuer,
      client_id: `c-${unique()}`,
      api_audience: null,
      allowed_domains: [domain.toUpperCase()],
      claim_mapping: {},
      jit_enabled: false,
      enabled: true,
    });
    return { orgId: org.id, userId: user.id, provider };
  }

  it("finds every enabled provider of a shared issuer, and providers by domain stored lower-case", async () => {
    const domain = `d${unique()}.test`;
    const a = await orgWithProvider(domain);
    const b = await orgWithProvider(`e${unique()}.test`);
    const byIssuer = await findIdentityProvidersByIssuer(lane.db, issuer);
    expect(byIssuer.map((p) => p.org_id).sort()).to.deep.equal([a.orgId, b.orgId].sort());
    // Listed is not enough: a domain finds its provider once verified for the provider's organisation.
    expect(await findSignInProvidersByDomain(lane.db, domain)).to.deep.equal([]);
    await approveDomain(lane.deps, { via: "cli" }, a.orgId, domain);
    expect((await findSignInProvidersByDomain(lane.db, domain.toUpperCase())).map((p) => p.id)).to.deep.equal([a.provider.id]);

    const db = lane.db;
    await linkIdentity(db, { org_id: a.orgId, user_id: a.userId, provider_id: a.provider.id, issuer, subject: "same-sub" });
    // A second link of the same (issuer, subject), even from the other organisation, keeps the first.
    const kept = await linkIdentity(db, { org_id: b.orgId, user_id: b.userId, provider_id: b.provider.id, issuer, subject: "same-sub" });
    expect(kept.org_id).to.equal(a.orgId);
    expect(await deleteIdentityLinksOfUser(db, b.orgId, a.userId), "scoped by organisation").to.equal(0);
    expect(await deleteIdentityLinksOfUser(db, a.orgId, a.userId)).to.equal(1);
    expect(await findIdentityLink(db, issuer, "same-sub")).to.equal(undefined);
  });

  it("spends a refresh token once under concurrency; a late replay revokes the family", async () => {
    const db = lane.db;
    const a = await orgWithProvider(`f${unique()}.test`);
    const issued = await issueRefreshToken(db, { orgId: a.orgId, userId: a.userId, providerId: a.provider.id, ttlSeconds: 600 });
    const outcomes = await Promise.all([spendRefreshToken(db, issued.token), spendRefreshToken(db, issued.token)]);
    expect(outcomes.map((o) => o.kind)).to.deep.equal(["spent", "spent"]);
    await db("refresh_tokens")
      .where({ family_id: issued.familyId })
      .update({ used_at: db.raw("now() - interval '1 minute'") });
    expect((await spendRefreshToken(db, issued.token)).kind).to.equal("reused");
    const live = await db("refresh_tokens").where({ family_id: issued.familyId }).whereNull("revoked_at");
    expect(live).to.have.length(0);
    expect((await spendRefreshToken(db, "not-a-token")).kind).to.equal("unknown");
  });
});
