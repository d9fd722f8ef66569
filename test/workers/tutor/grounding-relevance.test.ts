/**
 * Grounding that never misleads, on the demo organisation: questions the material does not
 * answer but that share an everyday word with its titles, headings or course names ("policy",
 * "manual", "days", "return", "service") go to the general rung, said aloud, with no citation;
 * questions the material does answer stay grounded. And the model's own way down: when it
 * writes the step-down marker, the turn is announced (`grounding_update`) and stored as general
 * knowledge, citing nothing.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { STEP_DOWN_MARKER } from "../../../workers/tutor/step-down";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder, type Learner } from "./helpers";

/** The kind of question: nothing in the demo material answers them, each shares a frequent word with it. */
const UNANSWERED = [
  "What is our policy on remote work?",
  "¿Qué dice el manual sobre las vacaciones?",
  "How many days of paid sick leave do I get?",
  "What is the return-to-office policy after parental leave?",
  "What does the manual say about the company car?",
  "¿Cuál es la política de teletrabajo de la empresa?",
  "¿Cuántos días de vacaciones tengo al año?",
  "What is the safety policy for travelling abroad?",
  "Which service awards do employees get after ten years?",
  "¿Qué dice el manual sobre el horario de verano?",
];

const SAID_ALOUD = /not from company material|no proviene del material de la empresa|general knowledge|conocimiento general/i;

describe("the tutor, complete: grounding only in sources that answer", function () {
  this.timeout(120_000);
  let stack: Stack;
  let learner: Learner;

  before(async function () {
    stack = await useStack();
    // Enrolled in every demo course, so every course document is a document-rung candidate.
    learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials", "warehouseSafety", "customerExcellence"] });
  });

  afterEach(() => stack.llm.reset());
  after(async () => {
    await removeFreshEmployees(stack);
  });

  it("answers ten questions that only share frequent words with the material on the general rung, said aloud, citing nothing", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const grounded: string[] = [];
    for (const question of UNANSWERED) {
      const turn = await ask(stack, learner, question);
      if (turn.grounding.rung !== "general") grounded.push(`${question} → ${turn.grounding.rung}: ${turn.grounding.sources.map((s) => s.document).join(", ")}`);
      expect(turn.errors, question).to.deep.equal([]);
      expect(turn.citations, question).to.deep.equal([]);
      expect(turn.answer?.metadata.rung, question).to.equal(turn.grounding.rung);
      if (turn.grounding.rung === "general") expect(turn.answer?.content, question).to.match(SAID_ALOUD);
    }
    expect(grounded, "grounded in material that does not answer").to.deep.equal([]);
  });

  it("still grounds the questions the material answers, in English and Spanish", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const refund = await ask(stack, learner, "How many days do customers have to return an item for a full refund?");
    expect(refund.grounding).to.include({ rung: "chunks" });
    expect(refund.grounding.sources[0]).to.include({ document: "Returns Policy Manual" });
    expect(refund.citations.length).to.be.greaterThan(0);

    // The warehouse manual has no chunks: its text (not its title) answers, on the document rung.
    const forklift = await ask(stack, learner, "¿Qué necesito para conducir una carretilla elevadora?");
    expect(forklift.grounding).to.include({ rung: "document" });
    expect(forklift.grounding.sources[0]).to.include({ sourceId: DEMO_IDS.documentIds.warehouseSafety });
  });

  it("takes the course in context on the document rung whatever the question shares with it", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const turn = await ask(stack, learner, "What is our policy on remote work?", { course_id: DEMO_IDS.courseIds.warehouseSafety });
    expect(turn.grounding).to.include({ rung: "document" });
    expect(turn.grounding.sources[0]).to.include({ sourceId: DEMO_IDS.documentIds.warehouseSafety });
    // ...and the prompt lets the model say the document does not answer.
    expect(promptOf(generationRequestsFor(stack, "What is our policy on remote work?")[0]!)).to.include(STEP_DOWN_MARKER);
  });

  describe("the model steps down", () => {
    const question = "What is ticket escalation code ZEBRA-7 for?";

    it("announces grounding_update before its first token and stores the turn as general knowledge, citing nothing", async () => {
      stack.llm.setResponder(
        scriptedResponder({
          label: "cross_course",
          generation: () => `${STEP_DOWN_MARKER} This is general knowledge, not company material: escalation codes route a ticket to the right team [1].`,
        }),
      );
      const turn = await ask(stack, learner, question);
      expect(turn.grounding).to.include({ rung: "chunks" });
      const prompt = promptOf(generationRequestsFor(stack, question)[0]!);
      expect(prompt).to.include(`begin your reply with the exact marker ${STEP_DOWN_MARKER}`);

      const update = turn.events.find((e) => e.event === "grounding_update");
      expect(update?.payload).to.deep.include({ rung: "general", source: "none", sources: [], from: "chunks", reason: "sources_do_not_answer" });
      const firstToken = turn.names.indexOf("token");
      expect(turn.names.indexOf("grounding_update")).to.be.within(turn.names.indexOf("grounding") + 1, firstToken - 1);

      expect(turn.tokens).to.not.include(STEP_DOWN_MARKER);
      expect(turn.tokens).to.not.match(/\[\d+\]/);
      expect(turn.tokens.startsWith("This is general knowledge"), JSON.stringify(turn.tokens)).to.equal(true);
      expect(turn.citations).to.deep.equal([]);
      expect(turn.done?.retrievalSource).to.equal("none");
      expect(turn.answer?.content).to.equal(turn.tokens);
      expect(turn.answer?.metadata).to.deep.include({ rung: "general", retrieval_source: "none", sources: [], citations: [] });
      expect(turn.answer?.metadata.stepped_down).to.deep.include({ from: "chunks", reason: "sources_do_not_answer" });
      expect(turn.answer?.metadata.stepped_down.retrieved).to.be.greaterThan(0);
    });

    it("keeps the grounding and its citations when the model answers from the sources", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const turn = await ask(stack, learner, question);
      expect(turn.names).to.not.include("grounding_update");
      expect(turn.answer?.metadata.rung).to.equal("chunks");
      expect(turn.answer?.metadata.stepped_down).to.equal(undefined);
      expect(turn.citations.length).to.be.greaterThan(0);
    });

    it("offers no step-down on the general rung, where there are no sources to leave", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => `${STEP_DOWN_MARKER} Paella is a rice dish.` }));
      const turn = await ask(stack, learner, "How do I cook a paella valenciana?");
      expect(turn.grounding).to.include({ rung: "general" });
      expect(promptOf(generationRequestsFor(stack, "How do I cook a paella valenciana?")[0]!)).to.not.include(STEP_DOWN_MARKER);
      expect(turn.names).to.not.include("grounding_update");
    });
  });
});
