/**
 * The confirmation rule reads every language pack's yes, no and stop (workers/admin/confirmation.ts,
 * lib/languages/): each supported language confirms, rejects and stops with its own plain words,
 * and a hedge or a question in it is never a decision. Italian is the pack added last.
 */
import { expect } from "chai";
import { classifyReply, isStopRequest, type ReplyKind } from "../../../../workers/admin/confirmation";

const REPLIES: Record<string, Array<[string, ReplyKind]>> = {
  fr: [
    ["oui, vas-y", "confirm"],
    ["d'accord, merci", "confirm"],
    ["non merci", "reject"],
    ["laisse tomber", "reject"],
    ["peut-être demain", "question"],
    ["et si je dis oui ?", "question"],
  ],
  de: [
    ["ja, bitte", "confirm"],
    ["in Ordnung, jetzt", "confirm"],
    ["nein danke", "reject"],
    ["auf keinen Fall", "reject"],
    ["vielleicht später", "question"],
    ["ja, füge auch Bo hinzu", "new_request"],
  ],
  pt: [
    ["sim, pode", "confirm"],
    ["claro que sim, obrigado", "confirm"],
    ["não, obrigada", "reject"],
    ["esquece", "reject"],
    ["talvez amanhã", "question"],
  ],
  it: [
    ["sì", "confirm"],
    ["sì, procedi", "confirm"],
    ["va bene, grazie", "confirm"],
    ["certo, fallo adesso", "confirm"],
    ["no", "reject"],
    ["no grazie", "reject"],
    ["annulla", "reject"],
    ["lascia perdere", "reject"],
    ["forse domani", "question"],
    ["non so", "question"],
    ["cosa succede se confermo", "question"],
    ["sì, ma togli Bo", "new_request"],
  ],
};

const STOPS: Record<string, Array<[string, boolean]>> = {
  fr: [
    ["arrêtez", true],
    ["arrête, s'il vous plaît", true],
  ],
  de: [
    ["hör auf damit", true],
    ["stopp, bitte", true],
  ],
  pt: [
    ["interrompa, por favor", true],
    ["e se eu parar?", false],
  ],
  it: [
    ["ferma tutto", true],
    ["fermati, per favore", true],
    ["basta", true],
    ["interrompi", true],
    ["cosa succede se mi fermo?", false],
    ["ferma dopo il prossimo gruppo", false],
  ],
};

describe("the confirmation rule in every supported language", () => {
  for (const [language, replies] of Object.entries(REPLIES)) {
    it(`reads ${language} replies`, () => {
      for (const [reply, kind] of replies) expect(classifyReply(reply), reply).to.equal(kind);
    });
  }

  for (const [language, stops] of Object.entries(STOPS)) {
    it(`reads ${language} stops, and only plain ones`, () => {
      for (const [reply, stop] of stops) expect(isStopRequest(reply), reply).to.equal(stop);
    });
  }
});
