/**
 * Several identity providers in one organisation (staff on an Entra-like provider, contractors on
 * a Google-like one), through the commands every caller uses, on real PostgreSQL: each keeps its
 * own domains, a domain is listed by one enabled provider of an organisation at most, the
 * single-provider form refuses to guess once there are several, another organisation's provider
 * id is not found, removing one keeps the other (its links and sessions too), and the sign-in
 * page's lookup offers the provider of the email's domain, or the organisation's list — an OpenID
 * Connect one and a SAML one side by side, each with its own start URL.
 */
import { expect } from "chai";
import pino from "pino";
import { approveDomain } from "../../../commands/organisation-domains";
import {
  type IdentityProviderChange,
  type ProviderTarget,
  removeIdentityProvider,
  saveIdentityProvider,
  saveOrganisationIdentityProvider,
} from "../../../commands/organisation-identity-provider";
import { MAX_PROVIDERS_PER_ORG } from "../../../commands/identity-provider-rules";
import { listIdentityProvidersOfOrg } from "../../../db/queries/identity";
import { linkIdentity } from "../../../db/queries/identity-link-writes";
import { issueRefreshToken } from "../../../db/queries/refresh-tokens";
import { Refusal } from "../../../lib/refusal";
import { findPerson } from "../../../server/auth/sso/find-person";
import { SignInFailure } from "../../../server/auth/sso/failures";
import { findSignInChoices } from "../../../server/auth/sso/sign-in-choices";
import { databaseSuite } from "../../support/database";
import { TestIdp } from "../../support/saml-idp";
import { unique } from "../../support/sso";

const CLI = { via: "cli" as const, userId: null };

describe("commands/organisation-identity-provider: several providers per organisation", function () {
  const lane = databaseSuite(this);
  const deps = () => ({ db: lane.db, log: pino({ level: "silent" }), config: { auth: { SECRETS_KEY: undefined } } });
  const save = (orgId: string, target: ProviderTarget, change: IdentityProviderChange) => saveIdentityProvider(deps(), CLI, orgId, target, change);
  const change = (name: string, domains: string[], extra: Partial<IdentityProviderChange> = {}): IdentityProviderChange => ({
    display_name: name,
    issuer: `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.idp.test`,
    client_id: `client-${unique()}`,
    allowed_domains: domains,
    ...extra,
  });
  async function refusal(work: Promise<unknown>): Promise<Refusal> {
    const outcome = await work.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outcome, "refused").to.be.instanceOf(Refusal);
    return outcome as Refusal;
  }
  const audits = (orgId: string) =>
    lane.db("audit_log").where({ org_id: orgId, target_type: "identity_provider" }).orderBy("created_at").select("action", "target_id");

  /** An organisation with staff on one provider and contractors on another, each domain verified. */
  async function companyWithTwoProviders() {
    const org = await lane.build.buildOrg();
    const staff = `staff-${unique()}.test`;
    const contractors = `contractors-${unique()}.test`;
    for (const domain of [staff, contractors]) await approveDomain(lane.deps, { via: "cli" }, org.id, domain);
    const entra = await save(org.id, { kind: "new" }, change("Entra", [staff]));
    const google = await save(org.id, { kind: "new" }, change("Google", [contractors]));
    return { orgId: org.id, slug: org.slug, staff, contractors, entra, google };
  }

  it("keeps two providers in one organisation, each with its domains, audited one by one", async () => {
    const company = await companyWithTwoProviders();
    const listed = await listIdentityProvidersOfOrg(lane.db, company.orgId);
    expect(listed.map((p) => [p.display_name, p.allowed_domains])).to.deep.equal([
      ["Entra", [company.staff]],
      ["Google", [company.contractors]],
    ]);
    const changed = await save(company.orgId, { kind: "id", id: company.google.id }, change("Google Workspace", [company.contractors], { jit_enabled: true }));
    expect(changed).to.include({ id: company.google.id, display_name: "Google Workspace", jit_enabled: true });
    expect((await listIdentityProvidersOfOrg(lane.db, company.orgId)).find((p) => p.id === company.entra.id)).to.deep.equal(company.entra);
    expect(await audits(company.orgId)).to.deep.equal([
      { action: "identity_provider.created", target_id: company.entra.id },
      { action: "identity_provider.created", target_id: company.google.id },
      { action: "identity_provider.updated", target_id: company.google.id },
    ]);

    // The single-provider form does not guess which one is meant.
    const several = await refusal(saveOrganisationIdentityProvider(deps(), CLI, company.orgId, change("Okta", [])));
    expect(several.code).to.equal("SEVERAL_IDENTITY_PROVIDERS");
    expect(several.details).to.deep.equal({ provider_ids: [company.entra.id, company.google.id] });
    expect((await refusal(removeIdentityProvider(deps(), CLI, company.orgId, { kind: "sole" }))).code).to.equal("SEVERAL_IDENTITY_PROVIDERS");
    expect(await listIdentityProvidersOfOrg(lane.db, company.orgId)).to.have.length(2);
  });

  it("refuses a domain another enabled provider of the organisation lists (409 DOMAIN_HAS_PROVIDER), also when enabling a disabled one", async () => {
    const company = await companyWithTwoProviders();
    const before = await audits(company.orgId);
    const overlap = await refusal(save(company.orgId, { kind: "new" }, change("Okta", [company.staff.toUpperCase(), `other-${unique()}.test`])));
    expect(overlap).to.include({ kind: "conflict", code: "DOMAIN_HAS_PROVIDER" });
    expect(overlap.details).to.deep.equal({ provider_id: company.entra.id, domains: [company.staff] });
    const moved = await refusal(save(company.orgId, { kind: "id", id: company.google.id }, change("Google", [company.contractors, company.staff])));
    expect(moved.code).to.equal("DOMAIN_HAS_PROVIDER");
    // Saved off, it may list the domain (a provider being prepared); turning it on is refused while the other lists it.
    const spare = await save(company.orgId, { kind: "new" }, change("Okta", [company.staff], { enabled: false }));
    expect((await refusal(save(company.orgId, { kind: "id", id: spare.id }, change("Okta", [company.staff], { client_id: spare.client_id! })))).code).to.equal(
      "DOMAIN_HAS_PROVIDER",
    );
    // Once the first gives the domain up, the other may take it.
    await save(company.orgId, { kind: "id", id: company.entra.id }, change("Entra", [], { client_id: company.entra.client_id! }));
    expect(await save(company.orgId, { kind: "id", id: spare.id }, change("Okta", [company.staff], { client_id: spare.client_id! }))).to.include({
      enabled: true,
    });
    const google = (await listIdentityProvidersOfOrg(lane.db, company.orgId)).find((p) => p.id === company.google.id)!;
    expect(google.allowed_domains, "refused changes stored nothing").to.deep.equal([company.contractors]);
    expect((await audits(company.orgId)).slice(before.length).map((a) => a.action)).to.deep.equal([
      "identity_provider.created",
      "identity_provider.updated",
      "identity_provider.updated",
    ]);
  });

  it("treats another organisation's provider id as not found: nothing changed or removed there", async () => {
    const mine = await companyWithTwoProviders();
    const theirs = await companyWithTwoProviders();
    const changed = await refusal(save(mine.orgId, { kind: "id", id: theirs.entra.id }, change("Hijack", [mine.staff])));
    expect(changed).to.include({ kind: "not_found", code: "NOT_FOUND" });
    expect(await removeIdentityProvider(deps(), CLI, mine.orgId, { kind: "id", id: theirs.google.id })).to.equal(false);
    expect(await listIdentityProvidersOfOrg(lane.db, theirs.orgId)).to.deep.equal([theirs.entra, theirs.google]);
    // A domain the other organisation verified stays refused across organisations, as before.
    expect((await refusal(save(mine.orgId, { kind: "new" }, change("Okta", [theirs.contractors])))).code).to.equal("DOMAIN_CLAIMED");
  });

  it("removes one provider with its links and sessions, keeping the other's", async () => {
    const company = await companyWithTwoProviders();
    const db = lane.db;
    const staffer = await lane.build.buildPerson(company.orgId, { email: `sam@${company.staff}` });
    const contractor = await lane.build.buildPerson(company.orgId, { email: `cleo@${company.contractors}` });
    await linkIdentity(db, { org_id: company.orgId, user_id: staffer.id, provider_id: company.entra.id, issuer: company.entra.issuer!, subject: "sam" });
    await linkIdentity(db, { org_id: company.orgId, user_id: contractor.id, provider_id: company.google.id, issuer: company.google.issuer!, subject: "cleo" });
    const samSession = await issueRefreshToken(db, { orgId: company.orgId, userId: staffer.id, providerId: company.entra.id, ttlSeconds: 600 });
    const cleoSession = await issueRefreshToken(db, { orgId: company.orgId, userId: contractor.id, providerId: company.google.id, ttlSeconds: 600 });

    expect(await removeIdentityProvider(deps(), CLI, company.orgId, { kind: "id", id: company.entra.id })).to.equal(true);
    expect((await listIdentityProvidersOfOrg(db, company.orgId)).map((p) => p.id)).to.deep.equal([company.google.id]);
    expect(await db("identity_links").where({ org_id: company.orgId }).pluck("subject")).to.deep.equal(["cleo"]);
    const sessions = await db("refresh_tokens").whereIn("family_id", [samSession.familyId, cleoSession.familyId]).select("user_id", "revoked_at");
    expect(sessions.find((s) => s.user_id === staffer.id)!.revoked_at, "the removed provider's session ends").to.not.equal(null);
    expect(sessions.find((s) => s.user_id === contractor.id)!.revoked_at, "the other's goes on").to.equal(null);
    // Back to one: the single-provider form addresses it again.
    expect((await saveOrganisationIdentityProvider(deps(), CLI, company.orgId, change("Google", [company.contractors]))).id).to.equal(company.google.id);
  });

  it("signs a linked person in only through the provider that made the link, even when two providers share an issuer (LINKED_TO_ANOTHER_PROVIDER, not re-linked)", async () => {
    const org = await lane.build.buildOrg();
    const staff = `staff-${unique()}.test`;
    const contractors = `contractors-${unique()}.test`;
    for (const domain of [staff, contractors]) await approveDomain(lane.deps, { via: "cli" }, org.id, domain);
    // Two Entra apps in one tenant: one issuer, one app per domain.
    const issuer = `https://login.tenant-${unique()}.test/v2.0`;
    const staffApp = await save(org.id, { kind: "new" }, change("Staff app", [staff], { issuer }));
    const contractorApp = await save(org.id, { kind: "new" }, change("Contractor app", [contractors], { issuer }));
    const staffer = await lane.build.buildPerson(org.id, { email: `sam@${staff}` });
    await linkIdentity(lane.db, { org_id: org.id, user_id: staffer.id, provider_id: staffApp.id, issuer, subject: "sam" });
    const claims = { issuer, subject: "sam", email: `sam@${staff}`, emailVerified: true, profile: {}, groups: [] };

    for (const dryRun of [true, false]) {
      const outcome = await findPerson(lane.db, contractorApp, claims, { dryRun }).catch((error: unknown) => error);
      expect(outcome, `dry run: ${dryRun}`).to.be.instanceOf(SignInFailure);
      expect((outcome as SignInFailure).code).to.equal("LINKED_TO_ANOTHER_PROVIDER");
    }
    expect(await lane.db("identity_links").where({ issuer, subject: "sam" }).pluck("provider_id")).to.deep.equal([staffApp.id]);
    expect(await findPerson(lane.db, staffApp, claims)).to.include({ userId: staffer.id, how: "linked" });
  });

  it(`holds an organisation to ${MAX_PROVIDERS_PER_ORG} providers (409 IDENTITY_PROVIDER_LIMIT)`, async () => {
    const org = await lane.build.buildOrg();
    for (let n = 0; n < MAX_PROVIDERS_PER_ORG; n += 1) await save(org.id, { kind: "new" }, change(`P${n}`, []));
    expect((await refusal(save(org.id, { kind: "new" }, change("One more", [])))).code).to.equal("IDENTITY_PROVIDER_LIMIT");
  });

  it("offers the provider of the email's verified domain, the organisation's list otherwise, and nothing for an unverified domain", async () => {
    const company = await companyWithTwoProviders();
    const names = async (query: { email?: string; org?: string }) => (await findSignInChoices(lane.db, query)).providers.map((p) => p.display_name);
    expect(await findSignInChoices(lane.db, { email: `sam@${company.staff}` })).to.deep.equal({
      providers: [{ id: company.entra.id, display_name: "Entra", protocol: "oidc", start_url: `/api/v1/auth/oidc/${company.entra.id}/start` }],
    });
    expect(await names({ email: `cleo@${company.contractors.toUpperCase()}` })).to.deep.equal(["Google"]);
    // A domain the organisation verified that no provider lists: its providers, to choose from.
    const office = `office-${unique()}.test`;
    await approveDomain(lane.deps, { via: "cli" }, company.orgId, office);
    expect(await names({ email: `ines@${office}` })).to.deep.equal(["Entra", "Google"]);
    expect(await names({ org: company.slug })).to.deep.equal(["Entra", "Google"]);
    // Pending, or verified by nobody: the same empty answer as an unknown domain; a disabled provider is not offered.
    const pending = `pending-${unique()}.test`;
    await lane.db("organisation_domains").insert({ org_id: company.orgId, domain: pending, token: unique() });
    expect(await findSignInChoices(lane.db, { email: `x@${pending}` })).to.deep.equal({ providers: [] });
    expect(await findSignInChoices(lane.db, { email: `x@nowhere-${unique()}.test` })).to.deep.equal({ providers: [] });
    await save(
      company.orgId,
      { kind: "id", id: company.google.id },
      change("Google", [company.contractors], { client_id: company.google.client_id!, enabled: false }),
    );
    expect(await names({ email: `cleo@${company.contractors}` })).to.deep.equal(["Entra"]);
  });

  it("offers an OpenID provider for one domain and a SAML provider for another, each with its protocol and start URL; a SAML update by id keeps its SP key", async () => {
    const company = await companyWithTwoProviders();
    const partner = `partner-${unique()}.test`;
    await approveDomain(lane.deps, { via: "cli" }, company.orgId, partner);
    const samlDeps = { ...deps(), config: { auth: { SECRETS_KEY: "identity-provider-tests-secrets-key-0123456789" } } };
    const idp = new TestIdp();
    const samlChange = (allowIdpInitiated: boolean, domains = [partner]): Extract<IdentityProviderChange, { protocol: "saml" }> => ({
      protocol: "saml",
      display_name: "Partner SAML",
      allowed_domains: domains,
      allow_idp_initiated: allowIdpInitiated,
    });
    const saml = await saveIdentityProvider(samlDeps, CLI, company.orgId, { kind: "new" }, { ...samlChange(false), metadata_xml: idp.metadata() });
    expect(saml).to.include({ protocol: "saml", issuer: null, client_id: null });

    expect(await findSignInChoices(lane.db, { email: `sam@${company.staff}` })).to.deep.equal({
      providers: [{ id: company.entra.id, display_name: "Entra", protocol: "oidc", start_url: `/api/v1/auth/oidc/${company.entra.id}/start` }],
    });
    expect(await findSignInChoices(lane.db, { email: `pat@${partner.toUpperCase()}` })).to.deep.equal({
      providers: [{ id: saml.id, display_name: "Partner SAML", protocol: "saml", start_url: `/api/v1/auth/saml/${saml.id}/start` }],
    });
    const byOrg = (await findSignInChoices(lane.db, { org: company.slug })).providers.map((p) => [p.display_name, p.protocol, p.start_url]);
    expect(byOrg).to.deep.equal([
      ["Entra", "oidc", `/api/v1/auth/oidc/${company.entra.id}/start`],
      ["Google", "oidc", `/api/v1/auth/oidc/${company.google.id}/start`],
      ["Partner SAML", "saml", `/api/v1/auth/saml/${saml.id}/start`],
    ]);

    // One enabled provider per domain whatever the protocol: the SAML provider may not take the staff's domain.
    const taken = await refusal(saveIdentityProvider(samlDeps, CLI, company.orgId, { kind: "id", id: saml.id }, samlChange(false, [partner, company.staff])));
    expect(taken.code).to.equal("DOMAIN_HAS_PROVIDER");
    // Changed by id without new metadata: the stored metadata and our SP key pair stay (the IdP trusts that certificate).
    const changed = await saveIdentityProvider(samlDeps, CLI, company.orgId, { kind: "id", id: saml.id }, samlChange(true));
    expect(changed.saml_config).to.include({ entity_id: idp.entityId, allow_idp_initiated: true });
    expect(changed.sp_certificate).to.equal(saml.sp_certificate);
    expect(changed.sp_private_key_encrypted).to.equal(saml.sp_private_key_encrypted);
    expect((await listIdentityProvidersOfOrg(lane.db, company.orgId)).find((p) => p.id === company.entra.id)).to.deep.equal(company.entra);
  });
});
