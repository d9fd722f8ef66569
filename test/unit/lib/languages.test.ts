/**
 * The language packs (lib/languages/): one per supported language, every list filled or its
 * emptiness explained, Snowball stemmers that conflate real inflections, and the short replies,
 * greetings and health terms of each language read as that language.
 */
import { expect } from "chai";
import { detectLanguage } from "../../../lib/language-detection";
import { LANGUAGE_PACKS, PACKS, packFor } from "../../../lib/languages";
import type { LanguagePack, PackListName } from "../../../lib/languages/pack";
import { CATALOG_LANGUAGES, messagesFor } from "../../../lib/messages";
import { sensitiveTopicOf } from "../../../lib/sensitive-topics";

/** Every list of a pack by its name (the names `fallbacks` is keyed by). */
function listsOf(pack: LanguagePack): Array<[PackListName, readonly unknown[]]> {
  return [
    ["greetings", pack.greetings],
    ["thanks", pack.thanks],
    ["acknowledgements", pack.acknowledgements],
    ["shortReplyWords", pack.shortReplyWords],
    ["progressPhrases", pack.progressPhrases],
    ...Object.entries(pack.confirmation).map(([name, list]) => [`confirmation.${name}`, list] as [PackListName, readonly unknown[]]),
    ...Object.entries(pack.grounding).map(([name, list]) => [`grounding.${name}`, list] as [PackListName, readonly unknown[]]),
    ...Object.entries(pack.healthTerms).map(([name, list]) => [`healthTerms.${name}`, list] as [PackListName, readonly unknown[]]),
  ];
}

describe("the language packs", () => {
  it("has one pack per language of the catalog, Italian included, each referring to its own fixed sentences", () => {
    expect(Object.keys(LANGUAGE_PACKS)).to.deep.equal([...CATALOG_LANGUAGES]);
    expect(CATALOG_LANGUAGES).to.include("it");
    for (const language of CATALOG_LANGUAGES) {
      expect(LANGUAGE_PACKS[language].code).to.equal(language);
      expect(LANGUAGE_PACKS[language].messages, language).to.equal(messagesFor(language));
    }
    // A language without a pack is read as English is, as its fixed sentences fall back.
    expect(packFor("nl")).to.equal(LANGUAGE_PACKS.en);
    expect(packFor("it")).to.equal(LANGUAGE_PACKS.it);
  });

  it("is a type the compiler checks: a pack without one of its lists is not a LanguagePack", () => {
    // @ts-expect-error a pack must have health terms (an empty list with a fallback at most)
    const incomplete: LanguagePack = { ...LANGUAGE_PACKS.it, healthTerms: undefined };
    expect(incomplete.healthTerms).to.equal(undefined);
  });

  it("fills every list of every pack, or says why it is empty (and only then)", () => {
    for (const pack of PACKS) {
      for (const [name, list] of listsOf(pack)) {
        const reason = pack.fallbacks[name];
        if (list.length === 0) expect(reason, `${pack.code} ${name} is empty without a reason`).to.be.a("string").with.length.greaterThan(20);
        else expect(reason, `${pack.code} ${name} has words and a stale fallback`).to.equal(undefined);
      }
      for (const name of Object.keys(pack.fallbacks))
        expect(
          listsOf(pack).map(([n]) => n),
          `${pack.code} fallback for an unknown list`,
        ).to.include(name);
    }
  });

  it("declares exactly the fallbacks it has: no phrase rewrites in French, Portuguese and Italian; a shared crude stem alone for English and Spanish", () => {
    const withoutRewrites = PACKS.filter((pack) => pack.grounding.phraseRewrites.length === 0).map((pack) => pack.code);
    expect(withoutRewrites).to.deep.equal(["fr", "pt", "it"]);
    expect(PACKS.filter((pack) => !pack.judgeStems).map((pack) => pack.code)).to.deep.equal(["en", "es"]);
  });

  it("writes every word folded (lower case, no accents), except the word families and clause words, which keep the accents Postgres needs", () => {
    for (const pack of PACKS) {
      const folded = [
        ...pack.greetings,
        ...pack.thanks,
        ...pack.acknowledgements,
        ...pack.progressPhrases,
        ...pack.grounding.stopWords,
        ...pack.grounding.frameWords,
        ...pack.grounding.everydayWords,
        ...Object.values(pack.healthTerms).flat(),
      ];
      for (const word of folded) expect(word, `${pack.code} "${word}"`).to.match(/^[a-zß' ]+$/);
    }
  });

  it("never makes one phrase a yes in one language and a no in another", () => {
    const yes = new Set(PACKS.flatMap((pack) => pack.confirmation.yes));
    const clashes = PACKS.flatMap((pack) => pack.confirmation.no.filter((phrase) => yes.has(phrase)).map((phrase) => `${pack.code}: ${phrase}`));
    expect(clashes).to.deep.equal([]);
  });

  describe("stemmers (Snowball, @orama/stemmers)", () => {
    const conflated: Record<string, Array<[string, string]>> = {
      en: [
        ["policies", "policy"],
        ["trainings", "training"],
      ],
      es: [
        ["vacaciones", "vacacion"],
        ["cursos", "curso"],
      ],
      fr: [
        ["formations", "formation"],
        ["remboursement", "rembourser"],
        ["conges", "conge"],
      ],
      de: [
        ["schulungen", "schulung"],
        ["erstattungen", "erstattung"],
        ["mitarbeitern", "mitarbeiter"],
      ],
      pt: [
        ["treinamentos", "treinamento"],
        ["reembolsos", "reembolso"],
        ["funcionarios", "funcionario"],
      ],
      it: [
        ["corsi", "corso"],
        ["rimborsi", "rimborso"],
        ["formazioni", "formazione"],
        ["restituzione", "restituire"],
      ],
    };

    for (const [language, pairs] of Object.entries(conflated)) {
      it(`conflates real inflections in ${language}`, () => {
        const { stem } = packFor(language);
        for (const [a, b] of pairs) expect(stem(a), `${a} / ${b}`).to.equal(stem(b));
        // …and keeps different words apart.
        expect(stem(pairs[0]![0])).to.not.equal(stem(pairs[1]![0]));
      });
    }
  });

  describe("short replies, greetings and thanks", () => {
    const samples: Record<string, string[]> = {
      en: ["hi", "thanks a lot", "good evening"],
      es: ["hola", "muchas gracias", "hasta luego"],
      fr: ["bonjour", "merci beaucoup", "bonne soirée"],
      de: ["hallo", "vielen Dank", "auf Wiedersehen"],
      pt: ["olá", "muito obrigada", "boa noite"],
      it: ["ciao", "grazie mille", "buonasera", "arrivederci"],
    };
    for (const [language, texts] of Object.entries(samples)) {
      it(`reads ${language} greetings and thanks as ${language}, before any fallback`, () => {
        for (const text of texts) expect(detectLanguage(text, "nl"), text).to.equal(language);
      });
    }

    it("keeps a plain 'sí' Spanish (Italian's 'sì' folds to it, so Italian leaves it out) and 'ok' to the fallbacks", () => {
      expect(detectLanguage("sì", "it")).to.equal("es");
      expect(detectLanguage("ok", "it")).to.equal("it");
    });
  });

  it("recognises a health topic in each language, Italian included", () => {
    const questions: Array<[string, string]> = [
      ["I was diagnosed with ADHD, can I get more time?", "neurodivergence"],
      ["Tengo ansiedad antes de los exámenes", "mental_health"],
      ["J'utilise un fauteuil roulant : la formation est-elle accessible ?", "disability"],
      ["Ich habe eine chronische Krankheit", "medical"],
      ["Tenho dislexia, posso fazer o teste oral?", "neurodivergence"],
      ["Ho la dislessia: posso avere più tempo per il test?", "neurodivergence"],
      ["Soffro di attacchi di panico durante le riunioni", "mental_health"],
      ["Sono su una sedia a rotelle, il corso è accessibile?", "disability"],
      ["Ho una malattia cronica", "medical"],
    ];
    for (const [question, topic] of questions) expect(sensitiveTopicOf(question), question).to.equal(topic);
    expect(sensitiveTopicOf("Quanti giorni di ferie ho quest'anno?")).to.equal(undefined);
  });
});
