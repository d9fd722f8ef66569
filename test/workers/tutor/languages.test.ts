/**
 * Every employee's language, on the real stack with the offline model (the scripted model's
 * default): a turn in French, German or Portuguese gets the prompt's instruction in that language
 * and the fixed sentences of that language (greeting, general-rung notice, suggestions); a
 * message too short to tell takes the session's language, then the employee's locale; and
 * material quoted in another language than the question is said to be so.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { messagesFor } from "../../../lib/messages";
import { stackSuite } from "../../support/suite";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees } from "./helpers";

/** The system message of the latest generation request that asks `question` (its last message). */
function systemPromptFor(stack: ReturnType<typeof stackSuite>, question: string): string {
  const generation = generationRequestsFor(stack, question)
    .filter((request) => promptOf({ ...request, body: { messages: request.body.messages.slice(-1) } }).trim() === question)
    .at(-1);
  expect(generation, `a generation request for ${question}`).to.not.equal(undefined);
  return promptOf({ ...generation!, body: { messages: generation!.body.messages.slice(0, 1) } });
}

describe("the tutor in every employee's language", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });

  after(() => removeFreshEmployees(stack));

  it("answers a French question on the general rung with the French notice, French suggestions and the instruction in French", async () => {
    const learner = await freshEmployee(stack, { locale: "en" });
    const question = "Quelle est la politique de l'entreprise sur le télétravail le vendredi ?";
    const turn = await ask(stack, learner, question);
    const fr = messagesFor("fr");

    expect(turn.errors).to.deep.equal([]);
    expect(turn.answer?.metadata).to.include({ language: "fr", rung: "general" });
    expect(turn.tokens.startsWith(fr.notCompanyMaterial), turn.tokens).to.equal(true);
    expect(turn.answer?.content).to.equal(turn.tokens);
    expect(turn.suggestions.length).to.be.greaterThan(0);
    for (const suggestion of turn.suggestions) expect(Object.values(fr.suggestions).flat()).to.include(suggestion);

    const system = systemPromptFor(stack, question);
    expect(system).to.include('Always answer in French (answer language "fr")');
    expect(system).to.include(fr.answerIn);
  });

  it("greets in German and thanks in Portuguese, whatever the employee's locale", async () => {
    const learner = await freshEmployee(stack, { locale: "es" });
    const hello = await ask(stack, learner, "Hallo!");
    expect(hello.answer?.metadata.language).to.equal("de");
    expect(hello.tokens).to.equal(messagesFor("de").greeting);
    expect(systemPromptFor(stack, "Hallo!")).to.include(messagesFor("de").answerIn);

    const thanks = await ask(stack, learner, "Muito obrigado!");
    expect(thanks.answer?.metadata.language).to.equal("pt");
    expect(thanks.tokens).to.equal(messagesFor("pt").thanks);
    expect(
      thanks.suggestions.every((s) => Object.values(messagesFor("pt").suggestions).flat().includes(s)),
      thanks.suggestions.join(" | "),
    ).to.equal(true);
  });

  it("takes the session's language for a message too short to tell, and the employee's locale (now any ISO 639-1) in a new session", async () => {
    const learner = await freshEmployee(stack, { locale: "en" });
    // `users.locale` is no longer limited to es/en.
    await stack.server.deps.db("users").where({ id: learner.userId }).update({ locale: "pt" });

    const first = await ask(stack, learner, "Wie viele Tage habe ich, um einen Artikel zurückzugeben?");
    expect(first.answer?.metadata.language).to.equal("de");
    const followUp = await ask(stack, learner, "ok", { session_id: first.sessionId });
    expect(followUp.sessionId).to.equal(first.sessionId);
    expect(followUp.answer?.metadata.language, "the session's earlier question decides").to.equal("de");

    const fresh = await ask(stack, learner, "ok");
    expect(fresh.sessionId).to.not.equal(first.sessionId);
    expect(fresh.answer?.metadata.language, "no earlier question: the locale decides").to.equal("pt");
    expect(systemPromptFor(stack, "ok")).to.include(messagesFor("pt").answerIn);
  });

  it("says plainly that the material is in Spanish when a Portuguese question is answered from a Spanish document", async () => {
    const learner = await freshEmployee(stack, { locale: "pt", enrolIn: ["warehouseSafety"] });
    const question = "Quem pode conduzir as empilhadeiras no armazém?";
    const turn = await ask(stack, learner, question, { course_id: DEMO_IDS.courseIds.warehouseSafety });
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding.rung).to.be.oneOf(["chunks", "document"]);
    expect(turn.answer?.metadata.language).to.equal("pt");
    expect(turn.tokens.startsWith(messagesFor("pt").materialIn("espanhol")), turn.tokens).to.equal(true);
    expect(turn.citations.length).to.be.greaterThan(0);
  });

  it("does not claim another language when the material is in the question's", async () => {
    const learner = await freshEmployee(stack, { locale: "en", enrolIn: ["returnsEssentials"] });
    const turn = await ask(stack, learner, "How many days do customers have to return an item for a full refund?");
    expect(turn.grounding.rung).to.equal("chunks");
    expect(turn.tokens.startsWith(messagesFor("en").accordingTo), turn.tokens).to.equal(true);
  });
});
