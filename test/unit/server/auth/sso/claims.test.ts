/** How a provider's claims become our fields, through an organisation's claim mapping (no I/O). */
import { expect } from "chai";
import { claimsMissing, domainAllowed, emailDomain, mapClaims, withUserInfo } from "../../../../../server/auth/sso/claims";

describe("sso claims mapping", () => {
  const base = { iss: "https://idp.example", sub: "s-1", email: "Ana@Example.COM", email_verified: true, name: " Ana García ", groups: ["staff"] };

  it("reads the standard claims, lower-cases the email, and leaves the role alone without admin groups", () => {
    const mapped = mapClaims(base, {});
    expect(mapped).to.deep.include({ issuer: "https://idp.example", subject: "s-1", email: "ana@example.com", emailVerified: true, groups: ["staff"] });
    expect(mapped.profile).to.deep.equal({ name: "Ana García" });
  });

  it("follows the mapping: other claim names, admin groups decide the role either way, a string group claim counts", () => {
    const claims = { ...base, mail: "boss@example.com", dept: "Ops", roles: "skillnet-admins" };
    const admin = mapClaims(claims, { email: "mail", department: "dept", groups: "roles", admin_groups: ["skillnet-admins"] });
    expect(admin.email).to.equal("boss@example.com");
    expect(admin.profile).to.deep.equal({ name: "Ana García", department: "Ops", role: "admin" });
    expect(mapClaims({ ...claims, roles: ["other"] }, { groups: "roles", admin_groups: ["skillnet-admins"] }).profile.role).to.equal("employee");
  });

  it("treats only true (or the string 'true') as a verified email; a department claim sent empty clears it", () => {
    expect(mapClaims({ ...base, email_verified: "true" }, {}).emailVerified).to.equal(true);
    expect(mapClaims({ ...base, email_verified: "yes" }, {}).emailVerified).to.equal(false);
    expect(mapClaims({ ...base, email_verified: undefined }, {}).emailVerified).to.equal(false);
    expect(mapClaims({ ...base, department: "" }, {}).profile.department).to.equal(null);
  });

  it("lets email_verified vouch only for the standard email claim; trust_email (Entra ID) vouches for whatever the mapping reads", () => {
    const claims = { ...base, upn: "someone.else@example.com", email_verified: true };
    expect(mapClaims(claims, { email: "upn" })).to.deep.include({ email: "someone.else@example.com", emailVerified: false });
    expect(mapClaims(claims, { email: "email" }).emailVerified).to.equal(true);
    expect(mapClaims({ ...claims, email_verified: undefined }, { email: "upn", trust_email: true }).emailVerified).to.equal(true);
    expect(mapClaims({ ...base, email_verified: undefined }, { trust_email: true }).emailVerified).to.equal(true);
  });

  it("reads the standard locale claim as its language (fr-CA and fr_CA → fr), and ignores one that is not a language", () => {
    expect(mapClaims({ ...base, locale: "fr-CA" }, {}).profile.locale).to.equal("fr");
    expect(mapClaims({ ...base, locale: "DE_at" }, {}).profile.locale).to.equal("de");
    expect(mapClaims({ ...base, locale: "zh-Hant" }, {}).profile.locale).to.equal("zh");
    for (const locale of ["", "english", 42, null]) expect(mapClaims({ ...base, locale }, {}).profile, String(locale)).not.to.have.property("locale");
  });

  it("matches email domains exactly", () => {
    expect(emailDomain("a@b.example")).to.equal("b.example");
    expect(emailDomain("nobody")).to.equal(undefined);
    expect(domainAllowed("a@example.com", ["Example.com"])).to.equal(true);
    expect(domainAllowed("a@mail.example.com", ["example.com"])).to.equal(false);
    expect(domainAllowed("a@example.com.evil.test", ["example.com"])).to.equal(false);
    expect(domainAllowed("a@example.com@evil.test", ["example.com"])).to.equal(false);
  });

  it("asks UserInfo only when the ID token lacks a claim the mapping reads (groups only when admin groups decide roles)", () => {
    const full = { sub: "1", email: "a@x.test", name: "Ana" };
    expect(claimsMissing(full, {})).to.equal(false);
    expect(claimsMissing({ sub: "1" }, {}), "a stock provider's ID token: sub only").to.equal(true);
    expect(claimsMissing(full, { admin_groups: ["admins"] })).to.equal(true);
    expect(claimsMissing({ ...full, roles: [] }, { admin_groups: ["admins"], groups: "roles" })).to.equal(false);
    expect(claimsMissing({ sub: "1", upn: "a@x.test", name: "Ana" }, { email: "upn" })).to.equal(false);
    expect(claimsMissing(full, { department: "dept" })).to.equal(true);
  });

  it("completes the ID token from UserInfo without letting UserInfo change who signed in", () => {
    const merged = withUserInfo({ iss: "https://idp", sub: "1", aud: "app", nonce: "n" }, { sub: "1", iss: "https://evil", email: "a@x.test", name: "Ana" });
    expect(merged).to.include({ iss: "https://idp", sub: "1", aud: "app", nonce: "n", email: "a@x.test", name: "Ana" });
    // UserInfo's email_verified speaks of UserInfo's email, never of an address the ID token sent without a flag.
    const unflagged = withUserInfo({ sub: "1", email: "ana@x.test" }, { sub: "1", email: "other@x.test", email_verified: true });
    expect(unflagged).to.include({ email: "ana@x.test" }).and.not.have.property("email_verified");
    expect(withUserInfo({ sub: "1" }, { sub: "1", email: "ana@x.test", email_verified: true })).to.include({ email: "ana@x.test", email_verified: true });
  });
});
