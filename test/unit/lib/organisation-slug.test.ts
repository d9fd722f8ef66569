import { expect } from "chai";
import { SLUG_PATTERN, slugFromName } from "../../../lib/organisation-slug";

describe("organisation slugs", () => {
  it("derives a slug from a name: lower case, accents folded, punctuation to single hyphens", () => {
    expect(slugFromName("Beta Logistics")).to.equal("beta-logistics");
    expect(slugFromName("  Café Ñandú, S.A.  ")).to.equal("cafe-nandu-s-a");
    expect(slugFromName("ACME -- Retail!!")).to.equal("acme-retail");
    expect(slugFromName("日本")).to.equal("");
    expect(slugFromName("x".repeat(80))).to.have.length(63);
  });

  it("accepts what it derives and refuses what cannot be typed in a URL or OPS_ORG", () => {
    for (const good of ["beta-logistics", "a1", "acme", slugFromName("Beta Logistics, S.A.")]) expect(SLUG_PATTERN.test(good), good).to.equal(true);
    for (const bad of ["", "a", "-acme", "acme-", "ac--me", "Acme", "acme retail", "acme_retail", "x".repeat(64), "ácme"])
      expect(SLUG_PATTERN.test(bad), bad).to.equal(false);
  });
});
