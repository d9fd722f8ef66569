/** The catalog of fixed sentences (lib/messages.ts): complete in its six languages, English for any other. */
import { classifyReply } from "../../../workers/admin/confirmation";
import { expect } from "chai";
import { CATALOG_LANGUAGES, catalogLanguage, messagesFor } from "../../../lib/messages";
import { replies } from "../../../workers/admin/replies";
import type { AdminActionRow } from "../../../db/queries/admin-actions";

const ACTION = {
  preview: "Enrol 3 people in Returns Essentials",
  total: 3,
  status: "completed",
  expires_at: new Date("2026-12-04T09:30:00Z"),
} as AdminActionRow;

describe("the catalog of fixed sentences", () => {
  it("has every sentence in English, Spanish, French, German, Portuguese and Italian, each its own", () => {
    expect([...CATALOG_LANGUAGES]).to.deep.equal(["en", "es", "fr", "de", "pt", "it"]);
    const english = messagesFor("en");
    for (const language of CATALOG_LANGUAGES) {
      const messages = messagesFor(language);
      for (const key of ["answerIn", "greeting", "thanks", "accordingTo", "notCompanyMaterial", "yourQuestion", "sensitiveTopic"] as const) {
        expect(messages[key], `${language}.${key}`).to.be.a("string").that.is.not.empty;
        if (language !== "en") expect(messages[key], `${language}.${key} is translated`).to.not.equal(english[key]);
      }
      expect(messages.materialIn("X")).to.include("X");
      expect(messages.generalAbout("the topic")).to.include("the topic");
      for (const list of Object.values(messages.suggestions)) expect(list.length).to.be.within(2, 3);
    }
  });

  it("falls back to English for a language it has no sentences in", () => {
    expect(catalogLanguage("nl")).to.equal("en");
    expect(catalogLanguage("pt")).to.equal("pt");
    expect(messagesFor("ja")).to.equal(messagesFor("en"));
  });

  it("gives the admin's confirmation lines in every catalog language, quoting the frozen preview, and English for others", () => {
    const lines = CATALOG_LANGUAGES.map((language) => replies.confirmed(language, ACTION));
    expect(new Set(lines).size).to.equal(CATALOG_LANGUAGES.length);
    for (const line of lines) expect(line).to.include(ACTION.preview);
    expect(replies.confirmed("fr", ACTION)).to.match(/^Confirmé\. /);
    expect(replies.rejected("de", ACTION)).to.equal("Abgebrochen: „Enrol 3 people in Returns Essentials“. Es wurde nichts geändert.");
    expect(replies.pendingFooter("pt", ACTION, ["Ada (Sales): enrol"])).to.include("Ada (Sales): enrol e mais 2");
    // Every language tells the admin to answer with its own plain yes and no, words the confirmation rule reads so.
    const asked: Record<string, [string, string]> = {
      en: ["yes", "no"],
      es: ["sí", "no"],
      fr: ["oui", "non"],
      de: ["ja", "nein"],
      pt: ["sim", "não"],
      it: ["sì", "no"],
    };
    for (const [language, [yes, no]] of Object.entries(asked)) {
      const line = replies.stillPending(language, ACTION);
      expect(line, language).to.match(new RegExp(`[«„“]\\s?${yes}\\s?[»“”]`));
      expect(line, language).to.match(new RegExp(`[«„“]\\s?${no}\\s?[»“”]`));
      expect(classifyReply(yes), `${language} ${yes}`).to.equal("confirm");
      expect(classifyReply(no), `${language} ${no}`).to.equal("reject");
    }
    expect(replies.confirmed("nl", ACTION)).to.equal(replies.confirmed("en", ACTION));
  });
});
