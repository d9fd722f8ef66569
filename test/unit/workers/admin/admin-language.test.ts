/** Which language the admin assistant answers in (workers/admin/turn-context.ts `adminLanguage`). */
import { expect } from "chai";
import { adminLanguage } from "../../../../workers/admin/turn-context";

const said = (...questions: string[]) => questions.map((user) => ({ user, assistant: "…" }));

describe("the admin assistant's language", () => {
  it("answers in the message's own language, any language", () => {
    expect(adminLanguage("Inscris toute l'équipe Ventes au cours Returns Essentials", [], "en")).to.equal("fr");
    expect(adminLanguage("Welche Mitarbeiter haben ihren Kurs noch nicht abgeschlossen?", said("Who is in Sales?"), "es")).to.equal("de");
  });

  it("keeps the conversation's language for a reply too short to tell, else the locale", () => {
    expect(adminLanguage("ok", said("Quels employés n'ont pas terminé leur cours ?"), "en")).to.equal("fr");
    expect(adminLanguage("ok", [], "pt")).to.equal("pt");
  });

  it("keeps a French conversation French when the admin answers with the plain English yes or no its lines ask for", () => {
    const french = said("Inscris toute l'équipe Ventes au cours Returns Essentials avant vendredi");
    expect(adminLanguage("yes", french, "en")).to.equal("fr");
    expect(adminLanguage("no", french, "en")).to.equal("fr");
    // A yes in Spanish is answered in Spanish, as before, whatever the conversation's language.
    expect(adminLanguage("sí", said("Assign Returns Essentials to everyone in Sales"), "en")).to.equal("es");
    // Without an earlier question to go by, an English yes is English.
    expect(adminLanguage("yes", [], "es")).to.equal("en");
  });
});
