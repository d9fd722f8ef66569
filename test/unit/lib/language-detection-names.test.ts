/**
 * Language detection of short messages that carry names, ids, emails and numbers
 * (lib/language-detection.ts): admin commands and employee questions as people type them, in
 * the six languages the product speaks. N-grams read "Vera" or "e0f9a1b2" as whatever language
 * they look like, so a short message is read without them, and when too few words are left to
 * tell, the conversation's or the profile's language (the first fallback) decides.
 */
import { expect } from "chai";
import { detectLanguage, languageOf } from "../../../lib/language-detection";

/** Messages whose own words say their language, names and ids aside: detected as it, whatever the profile says. */
const TELLING: Record<string, string[]> = {
  en: [
    "Show me the progress of Luca Bianchi in Forklift Safety",
    "Please enrol marta.ruiz@example.com in the onboarding course",
    "How many days of leave does Anna Schmidt have left this year?",
    "Can you move Jonas to the Lisbon team from 1 March?",
  ],
  es: [
    "Muéstrame el progreso de Luca Bianchi en Seguridad con carretillas",
    "Inscribe a marta.ruiz@example.com en el curso de acogida, por favor",
    "¿Cuántos días de vacaciones le quedan a Anna Schmidt este año?",
    "¿Puedes pasar a Jonas al equipo de Lisboa desde el 1 de marzo?",
  ],
  fr: [
    "Montre-moi la progression de Luca Bianchi dans le cours Sécurité",
    "Inscris marta.ruiz@example.com au parcours d'accueil, s'il te plaît",
    "Combien de jours de congés reste-t-il à Anna Schmidt cette année ?",
    "Tu peux passer Jonas dans l'équipe de Lisbonne à partir du 1er mars ?",
  ],
  de: [
    "Zeig mir bitte den Fortschritt von Luca Bianchi im Kurs Staplersicherheit",
    "Melde marta.ruiz@example.com für den Einführungskurs an, bitte",
    "Wie viele Urlaubstage hat Anna Schmidt dieses Jahr noch übrig?",
    "Kannst du Jonas ab dem 1. März ins Team in Lissabon verschieben?",
  ],
  pt: [
    "Mostra-me o progresso do Luca Bianchi no curso de segurança",
    "Inscreve a marta.ruiz@example.com no curso de acolhimento, por favor",
    "Quantos dias de férias ainda tem a Anna Schmidt este ano?",
    "Podes passar o Jonas para a equipa de Lisboa a partir de 1 de março?",
  ],
  it: [
    "Mostrami i progressi di Luca Bianchi nel corso sulla sicurezza",
    "Iscrivi marta.ruiz@example.com al percorso di inserimento, per favore",
    "Quanti giorni di ferie restano ad Anna Schmidt quest'anno?",
    "Puoi spostare Jonas nel team di Lisbona dal 1° marzo?",
  ],
};

/** Commands of one or two words besides names and ids: too short to tell, so the profile's language decides. */
const TERSE: Record<string, string[]> = {
  en: [
    "Deactivate Vera e0f9a1b2",
    "Deactivate Vera",
    "Enroll Marco Rossi in Forklift Safety",
    "Archive course c12",
    "Reset password for ana.lopez@example.com",
  ],
  es: ["Desactiva a Vera e0f9a1b2", "Inscribe a Marco Rossi", "Archiva el curso c12", "Reactiva ana.lopez@example.com"],
  fr: ["Désactive Vera e0f9a1b2", "Inscris Marco Rossi", "Archive le cours c12", "Réactive ana.lopez@example.com"],
  de: ["Deaktiviere Vera e0f9a1b2", "Marco Rossi einschreiben", "Kurs c12 archivieren", "Reaktiviere ana.lopez@example.com"],
  pt: ["Desativa a Vera e0f9a1b2", "Inscreve o Marco Rossi", "Arquiva o curso c12", "Reativa ana.lopez@example.com"],
  it: ["Disattiva Vera e0f9a1b2", "Iscrivi Marco Rossi", "Archivia il corso c12", "Riattiva ana.lopez@example.com"],
};

describe("detectLanguage: names, ids, emails and numbers", () => {
  for (const [language, messages] of Object.entries(TELLING)) {
    it(`reads ${language} messages with names and ids by their own words, whatever the profile's language`, () => {
      const other = language === "en" ? "de" : "en";
      for (const message of messages) expect(detectLanguage(message, other), message).to.equal(language);
    });
  }

  for (const [language, messages] of Object.entries(TERSE)) {
    it(`takes the conversation's or profile's language (${language}) for a command that is mostly names and ids`, () => {
      for (const message of messages) {
        expect(detectLanguage(message, language), message).to.equal(language);
        // From the session's earlier messages, such a command tells nothing.
        expect(languageOf(message), message).to.equal(undefined);
      }
    });
  }

  it("keeps reading short messages without names as before", () => {
    expect(detectLanguage("wo ist das Formular", "xx")).to.equal("de");
    expect(detectLanguage("¿y las vacaciones?", "xx")).to.equal("es");
    expect(detectLanguage("deactivate", "it")).to.equal("en");
  });
});
