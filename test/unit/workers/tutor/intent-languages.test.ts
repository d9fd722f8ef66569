/** The tutor's intent heuristics read every language pack: greetings, thanks and progress questions in each supported language, Italian included. */
import { expect } from "chai";
import { heuristicIntent } from "../../../../workers/tutor/intent";

const CHITCHAT: Record<string, string[]> = {
  en: ["Good evening!", "Much appreciated"],
  es: ["¿Qué tal?", "Mil gracias"],
  fr: ["Bonsoir", "Salut, merci", "Super"],
  de: ["Guten Abend", "Danke sehr!", "Alles klar"],
  pt: ["Boa noite", "Valeu!", "Ótimo"],
  it: ["Ciao!", "Buongiorno", "Grazie mille", "Ciao, grazie", "Perfetto", "Arrivederci"],
};

const PROGRESS: Record<string, string[]> = {
  fr: ["Où en sont mes formations ?"],
  de: ["Zeig mir meine Schulungen"],
  pt: ["Quais são os meus prazos?"],
  it: ["Quali sono i miei corsi?", "Come sto andando?", "Mostrami i miei progressi", "Quali sono le mie scadenze?"],
};

describe("heuristicIntent in every supported language", () => {
  for (const [language, messages] of Object.entries(CHITCHAT)) {
    it(`settles ${language} greetings and thanks as chitchat`, () => {
      for (const message of messages) expect(heuristicIntent(message), message).to.equal("chitchat");
    });
  }

  for (const [language, messages] of Object.entries(PROGRESS)) {
    it(`settles ${language} progress questions`, () => {
      for (const message of messages) expect(heuristicIntent(message), message).to.equal("progress");
    });
  }

  it("leaves a real question with a greeting in front of it to the model, in Italian too", () => {
    expect(heuristicIntent("Ciao, come si restituisce un prodotto?")).to.equal(null);
    expect(heuristicIntent("Grazie, e quanti giorni di ferie ho?")).to.equal(null);
  });
});
