/**
 * How the tutor routes a turn: greetings skip the classifier, progress questions are answered
 * from the database, unrelated questions land on the general rung and are still answered, and
 * the reply (suggestions included) follows the language the employee wrote in.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { useStack, type Stack } from "../../support/stack";
import {
  CLASSIFY_MARKER,
  MODULE_SELECTION_MARKER,
  ask,
  chatRequestsContaining,
  freshEmployee,
  generationRequestsFor,
  promptOf,
  removeFreshEmployees,
  scriptedResponder,
  signIn,
  type Learner,
} from "./helpers";

describe("the tutor, complete: routing a turn", function () {
  this.timeout(60_000);
  let stack: Stack;
  let employee: Learner;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    employee = await signIn(stack, "employee@example.com");
  });

  beforeEach(() => stack.llm.reset());
  afterEach(() => stack.llm.reset());
  after(async () => {
    employee.socket.disconnect();
    await removeFreshEmployees(stack);
  });

  it("answers a greeting without asking the model to classify it (chitchat, general rung)", async () => {
    const turn = await ask(stack, employee, "hola");

    expect(turn.done, "turn finished with done").to.not.equal(undefined);
    expect(chatRequestsContaining(stack, CLASSIFY_MARKER), "no classification request").to.have.length(0);
    expect(stack.llm.embeddingCalls(), "no retrieval for small talk").to.have.length(0);
    const generation = generationRequestsFor(stack, "hola");
    expect(generation, "the answer itself is still generated").to.have.length(1);
    expect(promptOf(generation[0]!)).to.include("This is small talk");

    const classified = turn.events.find((e) => e.event === "stage" && e.payload.stage === "classify" && e.payload.status === "completed");
    expect(classified?.payload.detail).to.equal("chitchat");
    expect(turn.grounding).to.include({ rung: "general", source: "none" });
    expect(turn.grounding.sources).to.deep.equal([]);
    expect(turn.answer?.metadata).to.include({ intent: "chitchat", rung: "general", retrieval_source: "none" });
    expect(turn.answer?.content).to.not.equal("");
  });

  it("answers a progress question from database facts: no classifier, no embeddings, no module selection", async () => {
    const question = "What is my progress and my deadlines?";
    const turn = await ask(stack, employee, question);

    expect(turn.grounding).to.include({ rung: "chunks", source: "db" });
    expect(turn.grounding.sources.length).to.be.greaterThan(0);
    expect(turn.grounding.sources.every((s) => s.sourceType === "progress")).to.equal(true);
    expect(turn.grounding.sources[0]).to.include({ index: 1, document: "Your courses" });
    expect(stack.llm.embeddingCalls(), "no embeddings call").to.have.length(0);
    expect(chatRequestsContaining(stack, MODULE_SELECTION_MARKER), "no module-selection call").to.have.length(0);
    expect(chatRequestsContaining(stack, CLASSIFY_MARKER), "settled by the heuristic").to.have.length(0);

    const [generation] = generationRequestsFor(stack, question);
    const prompt = promptOf(generation!);
    expect(prompt).to.include("Returns Essentials");
    expect(prompt).to.include("Seguridad en el Almacén");
    // Module 1 of Returns Essentials is passed, module 2 failed, module 3 untouched; two reviews are overdue.
    expect(prompt).to.match(/Returns Essentials: in_progress \(1\/3 modules, deadline: \d{4}-\d{2}-\d{2}, score: 80%\)/);
    expect(prompt).to.match(/\[3\] Reviews due\n2\b/);
    expect(prompt).to.include("The sources are the employee's own progress data");

    expect(turn.answer?.metadata).to.include({ intent: "progress", rung: "chunks", retrieval_source: "db" });
    expect(turn.done?.retrievalSource).to.equal("db");
  });

  it("gives a new employee with no courses a progress answer instead of an error", async () => {
    const newcomer = await freshEmployee(stack, { locale: "es" });
    const turn = await ask(stack, newcomer, "¿Cómo voy?");
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding).to.include({ rung: "chunks", source: "db" });
    const [generation] = generationRequestsFor(stack, "¿Cómo voy?");
    expect(promptOf(generation!)).to.include("Todavía no tienes cursos asignados.");
    expect(turn.answer?.status).to.equal("complete");
  });

  for (const label of ["cross_course", "off_topic"] as const) {
    it(`answers an unrelated question classified ${label} on the general rung, without refusing`, async () => {
      const question = "Who won the 1998 football world cup?";
      stack.llm.setResponder(scriptedResponder({ label }));
      const turn = await ask(stack, employee, question);

      expect(chatRequestsContaining(stack, CLASSIFY_MARKER).filter((r) => promptOf(r).includes(question))).to.have.length(1);
      expect(turn.grounding).to.include({ rung: "general", source: "none" });
      expect(turn.grounding.sources).to.deep.equal([]);
      expect(turn.errors).to.deep.equal([]);
      expect(turn.done).to.not.equal(undefined);
      expect(turn.answer?.status).to.equal("complete");
      expect(turn.answer?.content.trim()).to.not.equal("");
      expect(turn.answer?.content).to.equal(turn.tokens);
      expect(turn.answer?.metadata).to.include({ intent: label, rung: "general", retrieval_source: "none" });
      expect(turn.citations).to.deep.equal([]);

      const [generation] = generationRequestsFor(stack, question);
      const system = promptOf({ ...generation!, body: { messages: generation!.body.messages.slice(0, 1) } });
      expect(system).to.include("answer from your general knowledge");
      expect(system).to.not.match(/refuse|cannot help/i);
      // Outside a course the material is searched before the model classifies: sources that answer would have settled the route.
      expect(stack.llm.embeddingCalls(), "company material was searched first").to.have.length(1);
    });
  }

  it("suggests follow-ups in Spanish for a Spanish question, even for an English-locale employee", async () => {
    const learner = await freshEmployee(stack, { locale: "en", enrolIn: ["returnsEssentials"] });
    const turn = await ask(stack, learner, "¿Cómo debo gestionar la queja de un cliente enfadado?");

    expect(turn.answer?.metadata.language).to.equal("es");
    expect(turn.suggestions.length).to.be.greaterThan(0);
    expect(
      turn.suggestions.some((s) => s.includes("¿")),
      turn.suggestions.join(" | "),
    ).to.equal(true);
    for (const suggestion of turn.suggestions) expect(suggestion).to.match(/[¿áéíóúñ]|\b(qué|curso|puedo|más|tema|progreso|hoy)\b/i);
    expect(turn.answer?.metadata.suggestions).to.deep.equal(turn.suggestions);
    const [generation] = generationRequestsFor(stack, "¿Cómo debo gestionar la queja");
    expect(promptOf(generation!)).to.include("Always answer in Spanish");
  });

  it("suggests follow-ups in English for an English question, even for a Spanish-locale employee", async () => {
    const learner = await freshEmployee(stack, { locale: "es" });
    const turn = await ask(stack, learner, "What should I say when a customer is angry about a late delivery?");

    expect(turn.answer?.metadata.language).to.equal("en");
    expect(turn.suggestions.length).to.be.greaterThan(0);
    for (const suggestion of turn.suggestions) expect(suggestion).to.not.match(/[¿áéíóúñ]/);
  });

  it("keeps a greeting's general-rung answer in the org's own voice (org name in the system prompt)", async () => {
    const turn = await ask(stack, employee, "Thanks!");
    expect(turn.answer?.metadata).to.include({ intent: "chitchat", rung: "general" });
    const [generation] = generationRequestsFor(stack, "Thanks!");
    const org = await stack.server.deps.db("organizations").where({ id: DEMO_IDS.orgId }).first();
    expect(promptOf(generation!)).to.include(`You are the learning tutor of ${org.name}`);
  });
});
