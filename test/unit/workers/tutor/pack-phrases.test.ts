/**
 * What the packs' lists make of an employee's wording (units, no stack): English phrases that
 * stand for one workplace concept ("annual leave", "time off", "doctor's note", "new hires"),
 * irregular forms the crude stem cannot join ("lost"/"lose"), and the function, frame and
 * everyday words of Italian, German and French that are not what a question is about ("quanta",
 * "sein", "arrivata", "fin") — each met in material of another language, while a question about
 * something the material does not hold still covers too little of it to ground.
 */
import { expect } from "chai";
import { contentTermsOf, occursIn, type QuestionTerm, textWordsOf } from "../../../../workers/tutor/retrieval/question-terms";
import { rarity, relevanceOf } from "../../../../workers/tutor/retrieval/relevance";

const stems = (question: string, language: string) => contentTermsOf(question, language).map((t) => t.stem);
const term = (question: string, language: string, stem: string): QuestionTerm => {
  const found = contentTermsOf(question, language).find((t) => t.stem === stem);
  if (!found) throw new Error(`${question}: no term ${stem} in ${stems(question, language)}`);
  return found;
};
/** Whether a word of a text is an occurrence of the term, as the judge compares them. */
const meets = (found: QuestionTerm, word: string) => textWordsOf(word, [found]).some((textWord) => occursIn(found, textWord));
const coverage = (question: string, language: string, text: string) => {
  const terms = contentTermsOf(question, language);
  return relevanceOf(
    terms,
    terms.map(() => rarity(1, 8)),
  ).coverage(text);
};

describe("the packs' phrases and word lists, as the judge reads a question (units)", () => {
  it("reads paid holiday as the leave concept, and 'leave' alone still as an everyday word", () => {
    const annual = term("How many days of annual leave do the French staff get?", "en", "vacation");
    expect(annual.everyday).to.equal(false);
    expect(meets(annual, "congés")).to.equal(true);
    expect(meets(annual, "Urlaub")).to.equal(true);
    expect(term("How many days of paternity leave do I get?", "en", "leave").everyday).to.equal(true);
  });

  it("reads 'time off' as time away from work (leave, or overtime given back) and drops the particles", () => {
    const timeOff = term("Do overtime hours get paid out or given back as time off?", "en", "timeoff");
    expect(meets(timeOff, "ausgeglichen")).to.equal(true);
    expect(meets(timeOff, "vacaciones")).to.equal(true);
    expect(stems("Do overtime hours get paid out or given back as time off?", "en")).to.not.include.members(["off", "given"]);
  });

  it("reads a doctor's note as a medical certificate and 'off sick' as sickness", () => {
    expect(stems("when do I need a doctor's note if I'm off sick?", "en")).to.have.members(["certific", "sick"]);
    expect(meets(term("when do I need a doctor's note?", "en", "certific"), "médico")).to.equal(true);
    expect(meets(term("do I need a sick note?", "en", "certific"), "certificat")).to.equal(true);
  });

  it("reads new hires as one concept, met by each language's word for them", () => {
    const newHire = term("how long is the probation period for new hires", "en", "newhire");
    expect(meets(newHire, "neoassunti")).to.equal(true);
    expect(meets(newHire, "hires")).to.equal(false);
  });

  it("joins irregular forms the crude stem cannot ('lost' a receipt is to 'lose' one) and a meal's names", () => {
    expect(meets(term("I lost my receipt", "en", "lost"), "lose")).to.equal(true);
    expect(meets(term("a client dinner", "en", "dinner"), "meals")).to.equal(true);
    expect(
      coverage(
        "lost my receipt from a client dinner, can I still get reimbursed?",
        "en",
        "If you lose a receipt for meals, the amount is refunded with a declaration.",
      ),
    ).to.be.at.least(0.55);
  });

  it("drops Italian, German and French words that say nothing of the subject, and weighs everyday verbs as everyday", () => {
    expect(stems("Quanta pausa dopo sei ore?", "it")).to.not.include.members(["quanta", "dopo"]);
    expect(term("mi è arrivata una mail strana", "it", "arrivata").everyday).to.equal(true);
    expect(stems("Wie lang muss mein Passwort eigentlich sein?", "de")).to.deep.equal(["passwort"]);
    expect(stems("Muss ich Überstunden absegnen lassen oder reicht es?", "de")).to.not.include.members(["lassen", "reicht"]);
    expect(meets(term("Muss ich Überstunden absegnen lassen?", "de", "absegnen"), "approved")).to.equal(true);
    expect(term("avant fin mai je les perds ?", "fr", "fin").everyday).to.equal(true);
    expect(meets(term("avant fin mai je les perds ?", "fr", "perd"), "perdus")).to.equal(true);
    expect(meets(term("on m'a volé mon portable", "fr", "portable"), "laptop")).to.equal(true);
  });

  it("still grounds no question about something the material lacks, whatever concept words it shares", () => {
    const leave = "Chaque salarié a droit à 25 jours ouvrés de congés payés par an.";
    expect(coverage("How many days of paternity leave do I get?", "en", leave)).to.be.below(0.55);
    expect(coverage("how much time off do I get for jury duty?", "en", leave)).to.be.below(0.55);
    expect(coverage("can I get a doctor's note for my dog?", "en", "A partir del cuarto día necesitas el parte de baja del médico.")).to.be.below(0.55);
    // A unit of time stays in its own language: met in another's words, "hours" and "paid" alone grounded a question about night work.
    // The rarities the eval's company material gives them: paying is a frequent subject there, night work none.
    const night = contentTermsOf("¿cuánto me pagan de más por las horas de noche?", "es");
    const paidHours = relevanceOf(night, [1.23, 2.96, 4.06], [false, false, true]);
    expect(paidHours.coverage("Stehen mehr als 20 Stunden auf dem Zeitkonto, werden die weiteren Stunden ausgezahlt.")).to.be.below(0.55);
  });
});
