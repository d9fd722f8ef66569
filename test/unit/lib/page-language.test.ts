/**
 * Which language the pages are drawn in (lib/page-language.ts): a tag counts by its primary
 * language, a language the pages do not speak falls through to the next candidate, English last;
 * Accept-Language is read in its `q` order.
 */
import { expect } from "chai";
import { CATALOG_LANGUAGES } from "../../../lib/messages";
import { acceptedTags, PAGE_LANGUAGES, pageLanguageOf, resolvePageLanguage } from "../../../lib/page-language";

describe("page language", () => {
  it("speaks every language that has a pack, and no other", () => {
    expect([...PAGE_LANGUAGES].sort()).to.deep.equal([...CATALOG_LANGUAGES].sort());
  });

  it("reads a tag by its primary language: pt-BR → pt, de-AT → de, fr_CA → fr, zh and nonsense → nothing", () => {
    expect(pageLanguageOf("pt-BR")).to.equal("pt");
    expect(pageLanguageOf("de-AT")).to.equal("de");
    expect(pageLanguageOf("fr_CA")).to.equal("fr");
    expect(pageLanguageOf(" IT ")).to.equal("it");
    expect(pageLanguageOf("zh-Hans-CN")).to.equal(undefined);
    expect(pageLanguageOf("")).to.equal(undefined);
    expect(pageLanguageOf(null)).to.equal(undefined);
    expect(pageLanguageOf("english")).to.equal(undefined);
  });

  it("orders Accept-Language by q, keeps the written order on ties, and drops q=0 and *", () => {
    expect(acceptedTags("zh-CN,zh;q=0.9,de-AT;q=0.8,en;q=0.7")).to.deep.equal(["zh-CN", "zh", "de-AT", "en"]);
    expect(acceptedTags("en;q=0.2, fr-CH, it;q=0.5")).to.deep.equal(["fr-CH", "it", "en"]);
    expect(acceptedTags("de;q=0, *;q=0.1, es")).to.deep.equal(["es"]);
    expect(acceptedTags(undefined)).to.deep.equal([]);
    expect(acceptedTags("")).to.deep.equal([]);
  });

  it("takes the first candidate the pages speak, else English", () => {
    // The person's choice first, then the browser.
    expect(resolvePageLanguage("de", acceptedTags("fr-FR,fr;q=0.9"))).to.equal("de");
    expect(resolvePageLanguage(null, acceptedTags("fr-FR,fr;q=0.9"))).to.equal("fr");
    // A stated language the pages do not speak (SCIM said Chinese) gives way to the browser.
    expect(resolvePageLanguage("zh", acceptedTags("pt-BR,en;q=0.5"))).to.equal("pt");
    expect(resolvePageLanguage(undefined, acceptedTags("zh-CN,ja;q=0.8"))).to.equal("en");
    expect(resolvePageLanguage()).to.equal("en");
  });
});
