/**
 * The retrieval ladder through the whole stack: PageIndex inside a course (current lesson
 * first), scoped fallback to the course's source chunks when the lessons are thin, hybrid
 * search whose keyword side finds a rare token, and the whole-document rung for a manual
 * that has no chunks.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { keywordSearch } from "../../../db/queries/knowledge-search";
import { DEMO_IDS, lessonId } from "../../../db/seeds/demo-ids";
import { contentWords } from "../../../workers/tutor/language";
import { keywordCoverage } from "../../../workers/tutor/retrieval/hybrid-search";
import { THIN_CONTEXT_TOKENS } from "../../../workers/tutor/retrieval/ladder";
import { countTokens } from "../../../workers/llm/tokens";
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

const RETURNS = DEMO_IDS.courseIds.returnsEssentials;
const RETURNS_MANUAL = DEMO_IDS.documentIds.returnsPolicy;

describe("the tutor, complete: retrieval", function () {
  this.timeout(60_000);
  let stack: Stack;
  let learner: Learner;
  let employee: Learner;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    employee = await signIn(stack, "employee@example.com");
  });

  beforeEach(() => stack.llm.reset());
  afterEach(() => stack.llm.reset());
  after(async () => {
    employee.socket.disconnect();
    await removeFreshEmployees(stack);
  });

  describe("in a course (PageIndex)", () => {
    it("answers from the one module whose lessons hold the question, current lesson first, without asking the model to choose", async () => {
      // The model would choose another module: the lesson text decides ("Counting the 30 days" holds every term, no other module does).
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "3" }));
      const current = lessonId(0, 0, 1); // "Checking the condition of goods", module 1
      const turn = await ask(stack, learner, "How do I count the 30 days of the refund window?", { course_id: RETURNS, lesson_id: current });

      expect(chatRequestsContaining(stack, MODULE_SELECTION_MARKER), "no module-selection call").to.have.length(0);

      expect(turn.grounding.rung).to.equal("chunks");
      expect(["pageindex", "scoped_fallback"]).to.include(turn.grounding.source);
      const lessons = turn.grounding.sources.filter((s) => s.sourceType === "lesson");
      expect(lessons.map((s) => s.sourceId)).to.deep.equal([current, lessonId(0, 0, 0)], "module 1's lessons, the current one first");
      expect(turn.grounding.sources[0]).to.include({ index: 1, sourceType: "lesson", sourceId: current, document: "Returns Essentials" });
      expect(turn.grounding.sources[0]!.section).to.equal("The Refund Window and Item Condition > Checking the condition of goods");
      // Two short lessons are thin, so the course's own manual tops them up — and only that manual.
      for (const chunk of turn.grounding.sources.filter((s) => s.sourceType === "document_chunk")) expect(chunk.document).to.equal("Returns Policy Manual");
      expect(turn.answer?.metadata).to.include({ intent: "in_course", retrieval_source: turn.grounding.source });
      expect(turn.suggestions).to.include("Summarise this lesson for me");
    });

    it("reads the course outline when the lesson text does not decide, and includes the current lesson even when the model picked another module", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const current = lessonId(0, 2, 0); // "Refunding to the original payment method", module 3
      const turn = await ask(stack, learner, "Can you explain this lesson again?", { course_id: RETURNS, lesson_id: current });

      const [selection] = chatRequestsContaining(stack, MODULE_SELECTION_MARKER);
      expect(selection, "a module-selection call").to.not.equal(undefined);
      expect(promptOf(selection!)).to.include("Module 1: The Refund Window and Item Condition");
      expect(promptOf(selection!)).to.include("Module 3: Refunds and Exceptions");

      expect(["pageindex", "scoped_fallback"]).to.include(turn.grounding.source);
      expect(turn.grounding.sources[0]).to.include({ index: 1, sourceType: "lesson", sourceId: current });
      const lessons = turn.grounding.sources.filter((s) => s.sourceType === "lesson").map((s) => s.sourceId);
      expect(lessons).to.deep.equal([current, lessonId(0, 0, 0), lessonId(0, 0, 1)]);
      // An answer may start meanwhile on every module (the question names nothing a module holds); the model's choice differs, so the answer is on module 1's lessons.
      const answered = promptOf(generationRequestsFor(stack, "Can you explain this lesson again?").at(-1)!);
      expect(answered).to.include("[1] Returns Essentials > Refunds and Exceptions > Refunding to the original payment method\nRefunds always go back");
      expect(answered).to.include("Counting the 30 days").and.not.to.include("Receipts and Exchanges > Processing an exchange");
    });

    it("uses PageIndex alone, without embeddings, when the selected lessons are enough", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "all" }));
      const current = lessonId(0, 1, 1);
      const turn = await ask(stack, learner, "Which items can never be returned?", { course_id: RETURNS, lesson_id: current });

      expect(turn.grounding).to.include({ rung: "chunks", source: "pageindex" });
      expect(stack.llm.embeddingCalls(), "no scoped fallback needed").to.have.length(0);
      const ids = turn.grounding.sources.map((s) => s.sourceId);
      expect(ids[0]).to.equal(current);
      expect(ids).to.have.length(6);
      expect(new Set(ids).size).to.equal(6, "the current lesson is not repeated");
      expect(turn.grounding.sources.every((s) => s.sourceType === "lesson")).to.equal(true);
      expect(turn.citations.length).to.be.greaterThan(0);
      for (const citation of turn.citations) expect(ids).to.include(citation.sourceId);
    });
  });

  describe("a thin course", () => {
    const courseId = randomUUID();
    const moduleId = randomUUID();
    const thinLesson = randomUUID();

    before(async () => {
      const db = stack.server.deps.db;
      await db("courses").insert({
        id: courseId,
        org_id: DEMO_IDS.orgId,
        title: "Refunds in Brief",
        language: "en",
        source_document_id: RETURNS_MANUAL,
        status: "published",
      });
      await db("modules").insert({
        id: moduleId,
        org_id: DEMO_IDS.orgId,
        course_id: courseId,
        title: "Card refunds",
        summary: "Where card refunds go.",
        position: 1,
      });
      await db("lessons").insert({
        id: thinLesson,
        org_id: DEMO_IDS.orgId,
        course_id: courseId,
        module_id: moduleId,
        title: "Card refunds",
        content: "Card refunds go back to the same card.",
        position: 1,
      });
      // Course context is only accepted for a course the learner is enrolled in.
      await db("enrollments").insert({ org_id: DEMO_IDS.orgId, user_id: learner.userId, course_id: courseId, status: "in_progress" });
      const chunks = await db("document_chunks").where({ document_id: RETURNS_MANUAL }).count<{ count: string }[]>("* as count").first();
      expect(Number(chunks?.count)).to.be.greaterThan(0, "the source manual has chunks");
    });

    after(async () => {
      await stack.server.deps.db("courses").where({ id: courseId }).delete();
    });

    it("falls back to the chunks of the course's source document", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const lesson = await stack.server.deps.db("lessons").where({ id: thinLesson }).first();
      expect(countTokens(lesson.content)).to.be.lessThan(THIN_CONTEXT_TOKENS);

      const turn = await ask(stack, learner, "Within how many business days are card refunds processed to the original payment method?", {
        course_id: courseId,
        lesson_id: thinLesson,
      });

      expect(turn.grounding).to.include({ rung: "chunks", source: "scoped_fallback" });
      expect(turn.grounding.sources[0]).to.include({ index: 1, sourceType: "lesson", sourceId: thinLesson });
      const chunks = turn.grounding.sources.filter((s) => s.sourceType === "document_chunk");
      expect(chunks.length).to.be.greaterThan(0);
      const manualChunkIds = (await stack.server.deps.db("document_chunks").where({ document_id: RETURNS_MANUAL }).select("id")).map(
        (r: { id: string }) => r.id,
      );
      for (const chunk of chunks) expect(manualChunkIds).to.include(chunk.sourceId);
      expect(chunks.map((c) => c.section)).to.include("5. Refunds to the Original Payment Method");
      expect(stack.llm.embeddingCalls()).to.have.length(1);
      expect(turn.answer?.metadata.retrieval_source).to.equal("scoped_fallback");
      expect(turn.done?.retrievalSource).to.equal("scoped_fallback");
    });
  });

  describe("across courses (hybrid search)", () => {
    const question = "What is ticket escalation code ZEBRA-7 for?";

    it("finds a chunk that only matches by a rare keyword", async () => {
      const db = stack.server.deps.db;
      const zebra = await db("document_chunks").where({ document_id: DEMO_IDS.documentIds.servicePlaybook }).andWhere("content", "like", "%ZEBRA-7%").first();
      expect(zebra, "the playbook chunk with ZEBRA-7").to.not.equal(undefined);

      // Whatever the vector side makes of it, the keyword side must find it, and it clears the keyword floor.
      const keywordHits = await keywordSearch(db, { reader: { orgId: DEMO_IDS.orgId, userId: DEMO_IDS.adminId }, words: contentWords(question), limit: 10 });
      expect(keywordHits.map((h) => h.id)).to.include(zebra.id);
      expect(keywordCoverage(contentWords(question), zebra.content)).to.equal(1);

      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const turn = await ask(stack, learner, question);
      // The sources found settle the route: the model is not asked to classify (stages.ts).
      expect(chatRequestsContaining(stack, CLASSIFY_MARKER)).to.have.length(0);
      expect(turn.grounding).to.include({ rung: "chunks", source: "semantic" });
      const hit = turn.grounding.sources.find((s) => s.sourceId === zebra.id);
      expect(hit, JSON.stringify(turn.grounding.sources)).to.include({
        sourceType: "document_chunk",
        document: "Customer Service Playbook",
        section: "3. Ticket Escalation",
      });
      expect(turn.citations.map((c) => c.sourceId)).to.include(zebra.id);
      expect(turn.answer?.content).to.include("ZEBRA-7");
    });

    it("does not let one shared common word pull an unrelated question off the general rung", async () => {
      const db = stack.server.deps.db;
      const unrelated = "Who won the 1998 football world cup?";
      const keywordHits = await keywordSearch(db, { reader: { orgId: DEMO_IDS.orgId, userId: DEMO_IDS.adminId }, words: contentWords(unrelated), limit: 10 });
      // "who" appears in the playbook ("who is at fault"): the raw keyword search does hit it...
      expect(keywordHits.length).to.be.greaterThan(0);
      // ...but no hit covers enough of the question to count.
      for (const hit of keywordHits) expect(keywordCoverage(contentWords(unrelated), hit.content)).to.be.lessThan(0.5);
    });
  });

  describe("the document rung", () => {
    it("answers from the whole chunkless Spanish manual of an enrolled course, as source [1]", async () => {
      const question = "¿Qué necesito para conducir una carretilla elevadora?";
      const manual = DEMO_IDS.documentIds.warehouseSafety;
      const chunkCount = await stack.server.deps.db("document_chunks").where({ document_id: manual }).count<{ count: string }[]>("* as count").first();
      expect(Number(chunkCount?.count)).to.equal(0, "the warehouse manual has no chunks");

      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const turn = await ask(stack, employee, question);

      expect(turn.grounding).to.include({ rung: "document" });
      expect(turn.grounding.sources).to.have.length(1);
      expect(turn.grounding.sources[0]).to.include({ index: 1, sourceType: "document", sourceId: manual, document: "Manual de Seguridad en Almacén" });
      const [generation] = generationRequestsFor(stack, question);
      const prompt = promptOf(generation!);
      expect(prompt).to.include("[1] Manual de Seguridad en Almacén\n# Manual de Seguridad en Almacén");
      expect(prompt).to.include("certificación vigente de operador");
      expect(prompt).to.include("The source below is a whole company document");
      expect(turn.answer?.metadata).to.include({ rung: "document", intent: "cross_course" });
      expect(turn.citations.map((c) => c.index)).to.deep.equal([1]);
      expect(turn.answer?.metadata.language).to.equal("es");
    });

    it("does not force an enrolled manual on a question it shares no words with", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const turn = await ask(stack, employee, "Explain photosynthesis in plants");
      expect(turn.grounding).to.include({ rung: "general", source: "none" });
      expect(turn.answer?.content.trim()).to.not.equal("");
      expect(turn.errors).to.deep.equal([]);
    });
  });
});
