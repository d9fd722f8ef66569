/**
 * The offline model's small talk reads the language packs (lib/languages/): a greeting or thanks
 * in any supported language is answered with the catalog's greeting or thanks, and only a whole
 * thanks phrase is thanks. Its stop words stay English's and Spanish's (one language-blind list:
 * another language's function words would drop English content words from every embedding).
 */
import { expect } from "chai";
import { messagesFor } from "../../../lib/messages";
import { greetingReply } from "../../../offline-model/offline-answer";
import { contentWords, isGreeting, isThanks } from "../../../offline-model/text";

describe("the offline model's small talk in every supported language", () => {
  it("takes greetings and thanks of each language as small talk, and a question as none", () => {
    for (const text of ["Good evening", "¡Hola! ¿Qué tal?", "Bonsoir", "Guten Abend", "Boa tarde", "Ciao!", "Buonasera", "Grazie mille"]) {
      expect(isGreeting(text), text).to.equal(true);
    }
    for (const text of ["Ciao, quanti giorni di ferie ho?", "Can you?", "Que?", "Grazie, come si restituisce un prodotto?"]) {
      expect(isGreeting(text), text).to.equal(false);
    }
  });

  it("tells thanks from a greeting by a whole thanks phrase", () => {
    expect(isThanks("Grazie mille!")).to.equal(true);
    expect(isThanks("Muito obrigado")).to.equal(true);
    expect(isThanks("Muito bom dia"), "'muito' alone is no thanks").to.equal(false);
    expect(isThanks("Buongiorno")).to.equal(false);
  });

  it("answers an Italian greeting and thanks with the Italian sentences", () => {
    expect(greetingReply("Ciao!", "it")).to.equal(messagesFor("it").greeting);
    expect(greetingReply("Grazie mille", "it")).to.equal(messagesFor("it").thanks);
    expect(messagesFor("it").greeting).to.match(/^Ciao!/);
  });

  it("keeps its stop words English's and Spanish's: another language's function words stay content (the declared fallback)", () => {
    expect(contentWords("the policy of el manual")).to.deep.equal(["policy", "manual"]);
    expect(contentWords("come die man")).to.deep.equal(["come", "die", "man"]);
  });
});
