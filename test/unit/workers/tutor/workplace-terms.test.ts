/**
 * The grounding judge across languages (units, no stack): a question's key term is met by the
 * same workplace concept in every language's words (lib/languages/workplace-concepts.ts), so a
 * passage in one language covers a question in another; everyday words, words some pack counts
 * as common, and Romance words that merely end in a term carry nothing across; greetings frame
 * a question, and the country it is asked from weighs as an everyday word.
 */
import { expect } from "chai";
import { PACKS } from "../../../../lib/languages";
import { WORKPLACE_CONCEPTS } from "../../../../lib/languages/workplace-concepts";
import { contentTermsOf } from "../../../../workers/tutor/retrieval/question-terms";
import { rarity, relevanceOf } from "../../../../workers/tutor/retrieval/relevance";

const term = (question: string, language: string, stem: string) => {
  const found = contentTermsOf(question, language).find((t) => t.stem === stem);
  if (!found) throw new Error(`${question}: no term ${stem} in ${contentTermsOf(question, language).map((t) => t.stem)}`);
  return found;
};

describe("workplace terms: the judge across languages (units)", () => {
  it("names every concept in every pack, with words", () => {
    for (const pack of PACKS) {
      expect(Object.keys(pack.workplaceTerms), pack.code).to.deep.equal([...WORKPLACE_CONCEPTS]);
      for (const [concept, words] of Object.entries(pack.workplaceTerms)) expect(words.trim(), `${pack.code} ${concept}`).to.not.equal("");
    }
  });

  it("meets a key term with the other languages' words for its concept, in the text and in the search", () => {
    // Forms are the judge's crude stems, capped at eight letters ("vacaci" for "vacaciones").
    const conges = term("Combien de jours de congés payés ai-je ?", "fr", "cong");
    expect(conges.forms).to.include.members(["vacation", "urlaub", "vacaci", "ferie"]);
    expect(conges.query).to.include("urlaub").and.include("vacation");
    const overtime = term("Do overtime hours get paid out?", "en", "overtime");
    expect(overtime.query, "accented spellings for the simple text config").to.include("überstun:*");
    // Its own language's inflections too: "viajo" is the concept of "viajar".
    expect(term("Quanto recebo quando viajo?", "pt", "viajo").forms).to.include("travel");
  });

  it("lets a passage in another language cover the question", () => {
    const terms = contentTermsOf("Welche Schutzausrüstung brauche ich im Lager?", "de");
    const relevance = relevanceOf(
      terms,
      terms.map(() => rarity(1, 8)),
    );
    expect(relevance.coverage("No armazém é obrigatório usar botas com biqueira de aço e equipamento de proteção.")).to.be.at.least(0.55);
    expect(relevance.coverage("Os visitantes recebem o colete na receção.")).to.be.below(0.3);
  });

  it("carries no everyday word across, nor a word some pack counts as common ('leave' is a verb too)", () => {
    expect(term("Combien de jours de congés ?", "fr", "jour").forms).to.not.include("day");
    expect(term("¿Cuántos días de vacaciones tengo?", "es", "vacaci").forms).to.not.include("leave");
  });

  it("names new hires and language courses in every language ('new hires' meets 'neoassunti', 'English course' a 'corso di lingua')", () => {
    expect(term("how long is the probation period for new hires?", "en", "newhire").forms).to.include.members(["neoassun", "assunti", "neueinst"]);
    expect(term("mi rimborsano un corso di inglese?", "it", "inglese").forms).to.include.members(["lingua", "language", "idioma"]);
  });

  it("reads a German compound for the term it ends with, and a Romance word never so", () => {
    expect(term("Welche Schutzausrüstung brauche ich?", "de", "schutzau").forms).to.include("equipmen");
    expect(term("Je peux faire du télétravail ?", "fr", "teletrav").forms).to.not.include("work");
  });

  it("frames a question with a one-word greeting, and weighs the country and the month asked about as everyday words", () => {
    expect(contentTermsOf("Bonjour, combien de jours de congés ?", "fr").map((t) => t.stem)).to.not.include("bonjour");
    expect(term("les heures sup chez nos collègues en Allemagne ?", "fr", "allemagn").everyday).to.equal(true);
    expect(term("je me marie en juin, j'ai des jours en plus ?", "fr", "juin").everyday).to.equal(true);
    expect(term("je me marie en juin, j'ai des jours en plus ?", "fr", "marie").forms).to.include("mariage");
  });
});
