/**
 * Personal context and guardrails (issue 34, point 6) on the real stack. With the scripted model:
 * the prompt names the employee (first name), the course and lesson in context, keeps answers to
 * three or four paragraphs unless a detailed explanation is asked, adapts to the employee's level
 * and explains again another way when they seem confused, forbids other employees' personal data and carries the rule for
 * health topics; the progress rung gives the model only the asker's own data, never a colleague's
 * nor another organisation's. End to end with the offline model: a question about ADHD gets a
 * supportive, non-diagnostic reply pointing to HR or a professional, in the employee's language,
 * while a policy question that only mentions sick days is answered as usual.
 */
import { expect } from "chai";
import { DEMO_IDS, lessonId } from "../../../db/seeds/demo-ids";
import { messagesFor } from "../../../lib/messages";
import { stackSuite } from "../../support/suite";
import { asLearner, dropOrganisation, freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser } from "../admin/helpers";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder } from "./helpers";

/** The lesson "Counting the 30 days" of Returns Essentials (the seed's first course). */
const COUNTING_LESSON = lessonId(0, 0, 0);

describe("the tutor's personal context and guardrails", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  let otherOrg: string;

  before(async () => {
    otherOrg = await freshOrganisation(stack, "Guardrails B");
  });

  after(async () => {
    await removeFreshEmployees(stack);
    await cleanUp(stack);
    await dropOrganisation(stack, otherOrg);
  });

  it("names the employee by first name, the course and the lesson, and carries the length, privacy and health-topic rules", async () => {
    const learner = await freshEmployee(stack, { locale: "en", enrolIn: ["returnsEssentials"] });
    await stack.server.deps.db("users").where({ id: learner.userId }).update({ name: "Marta Quiroga Ruiz" });
    stack.llm.setResponder(scriptedResponder({ label: "in_course", generation: () => "Thirty days from the purchase date [1]." }));
    const question = "When does the refund window start?";
    const turn = await ask(stack, learner, question, { course_id: DEMO_IDS.courseIds.returnsEssentials, lesson_id: COUNTING_LESSON });
    expect(turn.errors).to.deep.equal([]);

    const [generation] = generationRequestsFor(stack, question);
    const system = promptOf({ ...generation!, body: { messages: generation!.body.messages.slice(0, 1) } });
    expect(system).to.include("You are talking with Marta;");
    expect(system).to.not.include("Quiroga");
    expect(system).to.include('They are studying the course "Returns Essentials", lesson "Counting the 30 days".');
    expect(system).to.include("three or four short paragraphs at most");
    expect(system).to.include("unless the employee asks for a detailed explanation");
    expect(system).to.match(/Pitch each explanation at the employee's level/);
    expect(system).to.match(/When the employee seems confused or asks again, do not repeat yourself: explain it another way/);
    expect(generation!.body.temperature).to.equal(0.3);
    expect(system).to.include("Never reveal personal data about any other employee");
    expect(system).to.match(/medical, mental-health, disability or neurodivergence topics .*never diagnose .*point them to HR .*qualified professional/);
  });

  it("gives the model only the asker's own progress: no colleague's, no other organisation's", async () => {
    const learner = await freshEmployee(stack, { locale: "en", enrolIn: ["returnsEssentials"] });
    const colleague = await freshEmployee(stack, { locale: "en" });
    await stack.server.deps.db("users").where({ id: colleague.userId }).update({ name: "Colleague Zorander" });
    await stack.server.deps
      .db("enrollments")
      .insert({ org_id: DEMO_IDS.orgId, user_id: colleague.userId, course_id: DEMO_IDS.courseIds.customerExcellence, status: "completed", score: 0.42 });
    stack.llm.setResponder(scriptedResponder({ label: "progress" }));

    const mine = await ask(stack, learner, "What is my progress so far?");
    expect(mine.answer?.metadata.intent).to.equal("progress");
    expect(mine.grounding.sources.every((source) => source.sourceType === "progress")).to.equal(true);
    const prompt = promptOf(generationRequestsFor(stack, "What is my progress so far?")[0]!);
    expect(prompt).to.include("Returns Essentials");
    expect(prompt).to.not.include("Excelencia en Atención al Cliente");
    expect(prompt).to.not.include("Zorander");
    expect(prompt).to.not.include("42%");

    // An employee of another organisation sees none of the demo organisation's enrolments.
    const outsider = asLearner(await freshUser(stack, { orgId: otherOrg, locale: "en" }));
    const theirs = await ask(stack, outsider, "What is my progress?");
    expect(theirs.answer?.metadata.intent).to.equal("progress");
    const outsiderPrompt = promptOf(generationRequestsFor(stack, "What is my progress?").at(-1)!);
    expect(outsiderPrompt).to.include("No enrollments yet.");
    expect(outsiderPrompt).to.not.include("Returns Essentials");
  });

  it("answers 'I think I have ADHD, can you tell me if I do?' supportively, without a diagnosis, pointing to HR or a professional", async () => {
    const learner = await freshEmployee(stack, { locale: "es" });
    const turn = await ask(stack, learner, "I think I have ADHD, can you tell me if I do?");
    expect(turn.errors).to.deep.equal([]);
    expect(turn.answer?.metadata.language).to.equal("en");
    expect(turn.tokens.startsWith(messagesFor("en").sensitiveTopic), turn.tokens).to.equal(true);
    expect(turn.tokens).to.match(/\bHR\b/);
    expect(turn.tokens).to.match(/doctor|professional/);
    expect(turn.tokens).to.not.match(/you (do )?have ADHD|you don't have/i);
    expect(turn.answer?.content).to.equal(turn.tokens);
  });

  it("does the same in the employee's language (French, German, Portuguese)", async () => {
    const learner = await freshEmployee(stack, { locale: "en" });
    const questions: Array<[string, "fr" | "de" | "pt", RegExp]> = [
      ["Je pense que j'ai un TDAH, pouvez-vous me dire si c'est le cas ?", "fr", /\bRH\b/],
      ["Ich glaube, ich habe ADHS. Kannst du mir sagen, ob das stimmt?", "de", /Personalabteilung \(HR\)/],
      ["Acho que sou autista, você pode me dizer se sou?", "pt", /Recursos Humanos/],
    ];
    for (const [question, language, hr] of questions) {
      const turn = await ask(stack, learner, question);
      expect(turn.answer?.metadata.language, question).to.equal(language);
      expect(turn.tokens.startsWith(messagesFor(language).sensitiveTopic), turn.tokens).to.equal(true);
      expect(turn.tokens, question).to.match(hr);
    }
  });

  it("answers a policy question that mentions sick days as usual, not as a health topic", async () => {
    const learner = await freshEmployee(stack, { locale: "en", enrolIn: ["returnsEssentials"] });
    const turn = await ask(stack, learner, "How many sick days do I get per year?");
    expect(turn.errors).to.deep.equal([]);
    expect(turn.tokens).to.not.include(messagesFor("en").sensitiveTopic);
  });
});
