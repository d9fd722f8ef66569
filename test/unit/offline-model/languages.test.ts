/**
 * The offline model in every employee's language: it answers in the language the tutor's prompt
 * names (fallbacks included), says plainly when the material it quotes is in another language,
 * and meets a health topic with the catalog's supportive reply (lib/sensitive-topics.ts), since it
 * follows no prompt.
 */
import { expect } from "chai";
import { messagesFor } from "../../../lib/messages";
import { sensitiveTopicOf } from "../../../lib/sensitive-topics";
import { offlineReply } from "../../../offline-model/offline-responder";
import { tutorSystemPrompt, tutorUserMessage } from "../../../workers/tutor/prompts";
import type { RetrievedSource } from "../../../workers/tutor/retrieval/types";

const SPANISH_SOURCE: RetrievedSource = {
  index: 1,
  document: "Política de Devoluciones",
  section: "Plazos",
  page: null,
  sourceType: "document_chunk",
  sourceId: null,
  content:
    "Los clientes disponen de 30 días naturales desde la fecha de compra para devolver un producto. El producto debe estar en su embalaje original y con el ticket de compra.",
};

function reply(
  language: string,
  question: string,
  sources: RetrievedSource[] = [],
  rung: "chunks" | "general" = sources.length ? "chunks" : "general",
): string {
  const system = tutorSystemPrompt({ orgName: "Acme", language, rung, intent: "cross_course", userName: "Ana" });
  return offlineReply({
    model: "offline",
    stream: false,
    messages: [
      { role: "system", content: system },
      { role: "user", content: tutorUserMessage(question, sources) },
    ],
  }).content!;
}

describe("the offline model in the employee's language", () => {
  it("says the material is in Spanish when an English question is answered from Spanish material, and cites it", () => {
    const answer = reply("en", "How many days do customers have to return a product (devolver un producto)?", [SPANISH_SOURCE]);
    expect(answer.startsWith("The company material on this is in Spanish; here is what it says: ")).to.equal(true);
    expect(answer).to.match(/30 días .*\[1\]/);
  });

  it("names the material's language in the employee's own (French: espagnol, German: Spanisch)", () => {
    expect(reply("fr", "Combien de jours pour devolver un producto ?", [SPANISH_SOURCE])).to.match(
      /^La documentation de l'entreprise sur ce sujet est en espagnol ; /,
    );
    expect(reply("de", "Wie viele Tage, um un producto zu devolver?", [SPANISH_SOURCE])).to.match(/^Die Unterlagen des Unternehmens dazu sind auf Spanisch; /);
    expect(reply("es", "¿Cuántos días tengo para devolver un producto?", [SPANISH_SOURCE])).to.match(/^Según el material de la empresa: /);
  });

  it("answers in the language the prompt names, even for a message that does not say (the product's fallbacks decide)", () => {
    for (const language of ["fr", "de", "pt"]) {
      expect(reply(language, "SAP?"), language).to.match(new RegExp(`^${messagesFor(language).notCompanyMaterial}`));
      expect(reply(language, "hi"), language).to.equal(messagesFor(language).greeting);
    }
    // A language without sentences of its own: English, as the catalog falls back.
    expect(reply("nl", "SAP?")).to.match(/^This is not from company material: /);
  });

  it("meets a health topic with the supportive reply, in the prompt's language, and still quotes the material after it", () => {
    expect(reply("en", "I think I have ADHD, can you tell me if I do?")).to.equal(messagesFor("en").sensitiveTopic);
    expect(reply("pt", "Acho que tenho TDAH, você pode me dizer?")).to.equal(messagesFor("pt").sensitiveTopic);
    const withMaterial = reply("es", "Tengo ansiedad, ¿cuántos días tengo para devolver un producto?", [SPANISH_SOURCE]);
    expect(withMaterial.startsWith(`${messagesFor("es").sensitiveTopic}\n\nSegún el material de la empresa: `)).to.equal(true);
  });
});

describe("sensitiveTopicOf", () => {
  it("recognises health, disability and neurodivergence topics by category in five languages", () => {
    const cases: Array<[string, string]> = [
      ["I think I have ADHD, can you tell me if I do?", "neurodivergence"],
      ["¿Crees que soy autista?", "neurodivergence"],
      ["J'ai une dyslexie, comment suivre le cours ?", "neurodivergence"],
      ["Ich habe ADHS und brauche mehr Zeit", "neurodivergence"],
      ["Acho que tenho TDAH", "neurodivergence"],
      ["I've been struggling with depression lately", "mental_health"],
      ["tengo mucha ansiedad con el examen", "mental_health"],
      ["Je suis en burn-out", "mental_health"],
      ["Which adjustments exist for a disability?", "disability"],
      ["Ich sitze im Rollstuhl, ist das Lager zugänglich?", "disability"],
      ["Tengo una discapacidad auditiva", "disability"],
      ["Can you diagnose my symptoms?", "medical"],
      ["Os meus medicamentos dão-me sono, posso conduzir?", "medical"],
      ["J'ai une maladie chronique", "medical"],
    ];
    for (const [text, topic] of cases) expect(sensitiveTopicOf(text), text).to.equal(topic);
  });

  it("leaves policy and safety questions that only brush the vocabulary alone", () => {
    for (const text of [
      "How many sick days do I get per year?",
      "What is a forklift's blind spot?",
      "My account is disabled, who can help?",
      "¿Cuántos días de baja tengo?",
      "Wie lange dauert die Probezeit?",
      "How do I cancel an order?",
    ]) {
      expect(sensitiveTopicOf(text), text).to.equal(undefined);
    }
  });
});
