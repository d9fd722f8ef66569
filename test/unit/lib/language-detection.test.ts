/**
 * Which language an employee writes in (lib/language-detection.ts): real short phrases in the five
 * catalog languages, with hedges, typos and mixed languages, and the fallback order for a text too
 * short to tell (earlier messages → locale → course language → English).
 */
import { expect } from "chai";
import { detectLanguage, languageOf, readsAs } from "../../../lib/language-detection";
import { isLanguageCode, languageName } from "../../../lib/language";

/** What employees type: questions, hedges and typos, a few words each. */
const PHRASES: Record<string, string[]> = {
  en: [
    "How many days do I have to return an item?",
    "what's my progress?",
    "I'm not sure, maybe later",
    "how do i retrun a prodcut",
    "where is the form for the safety training",
    "I think I have ADHD, can you tell me if I do?",
  ],
  es: [
    "¿Cuántos días tengo para devolver un producto?",
    "no estoy seguro, quizás luego",
    "como devuelvo un prodcto",
    "¿y las vacaciones?",
    "donde esta el formulario de seguridad",
    "creo que tengo TDAH, ¿me lo puedes confirmar?",
  ],
  fr: [
    "Combien de jours ai-je pour retourner un article ?",
    "je ne suis pas sûr, peut-être plus tard",
    "comment je retourne un prodiut",
    "où est le formulaire",
    "Je pense que j'ai un TDAH, pouvez-vous me dire si c'est le cas ?",
    "quelle est ma progression dans le cours",
  ],
  de: [
    "Wie viele Tage habe ich, um einen Artikel zurückzugeben?",
    "ich bin mir nicht sicher, vielleicht später",
    "wie gebe ich ein produkt zurük",
    "wo ist das Formular",
    "Ich glaube, ich habe ADHS, kannst du mir sagen, ob das so ist?",
    "Weiß ich nicht",
  ],
  pt: [
    "Quantos dias tenho para devolver um produto?",
    "não tenho certeza, talvez depois",
    "como devolvo um produto com defieto",
    "onde fica o formulário",
    "Acho que tenho TDAH, você pode me dizer se tenho?",
    "quanto tempo para devolução",
  ],
};

describe("detectLanguage", () => {
  for (const [language, phrases] of Object.entries(PHRASES)) {
    it(`reads short ${languageName(language)} phrases, hedges and typos as ${language}`, () => {
      for (const phrase of phrases) expect(detectLanguage(phrase, "xx"), phrase).to.equal(language);
    });
  }

  it("reads greetings and thanks too short for n-grams by their words", () => {
    const greetings: Array<[string, string]> = [
      ["hi", "en"],
      ["thanks!", "en"],
      ["hola", "es"],
      ["¡gracias!", "es"],
      ["bonjour", "fr"],
      ["merci beaucoup", "fr"],
      ["hallo", "de"],
      ["danke schön", "de"],
      ["olá", "pt"],
      ["obrigada", "pt"],
    ];
    // Fallbacks that are all wrong: the greeting's own words decide.
    for (const [text, language] of greetings) expect(detectLanguage(text, "it", "nl"), text).to.equal(language);
  });

  it("takes the language most of a mixed message is in", () => {
    expect(detectLanguage("¿Cuántos días tengo para pedir un refund de un producto?")).to.equal("es");
    expect(detectLanguage("Can I still return it? je veux dire, le produit que j'ai acheté la semaine dernière")).to.equal("fr");
    expect(detectLanguage("Ich habe eine Frage zum Onboarding und zum Feedback-Gespräch")).to.equal("de");
  });

  it("falls back in order for a text too short to tell: the first compatible fallback, else the first, else English", () => {
    // "ok" and "ADHD?" say nothing by themselves.
    expect(detectLanguage("ok", "fr", "es")).to.equal("fr");
    expect(detectLanguage("ADHD?", undefined, "de", "es")).to.equal("de");
    expect(detectLanguage("ok")).to.equal("en");
    // Missing and malformed fallbacks are skipped.
    expect(detectLanguage("ok", null, "", "Spanish", "pt")).to.equal("pt");
    // A unsure guess that agrees with a later fallback takes that fallback over an earlier one that does not fit.
    expect(detectLanguage("Urlaub?", "es", "de")).to.equal("de");
  });

  it("reports a language for clear text only (the session's earlier messages count only when clear)", () => {
    expect(languageOf("Quelle est la politique de retour des produits ?")).to.equal("fr");
    expect(languageOf("ok")).to.equal(undefined);
  });

  it("tells material plainly in another language from material in the question's", () => {
    const spanish = "Los clientes disponen de 30 días naturales desde la fecha de compra para devolver un producto.";
    expect(readsAs(spanish, "es")).to.equal(true);
    expect(readsAs(spanish, "en")).to.equal(false);
    // Too short to say: never claimed to be another language.
    expect(readsAs("30 días", "en")).to.equal(true);
  });
});

describe("language codes and names", () => {
  it("accepts ISO 639-1 codes only and names any language", () => {
    expect(["en", "pt", "ja"].every(isLanguageCode)).to.equal(true);
    expect(["EN", "eng", "", "pt-BR", null].some(isLanguageCode)).to.equal(false);
    expect(languageName("fr")).to.equal("French");
    expect(languageName("es", "fr")).to.equal("espagnol");
    expect(languageName("ja")).to.equal("Japanese");
  });
});
