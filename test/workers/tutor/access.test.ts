/**
 * Who reads what inside one organisation, through the whole stack. Two employees of the same
 * org in different departments ask the same questions: restricted material (a department-only
 * handbook, a course-only document, a course they are not enrolled in) reaches only the one
 * allowed, on every path that can put text in a prompt — hybrid search (vector and keyword),
 * PageIndex, the scoped fallback, the document rung — and is never named in grounding sources,
 * stored metadata or citations. The allowed employee does get it, so each denial can fail.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { keywordSearch, vectorSearch } from "../../../db/queries/knowledge-search";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { loadTurnContext } from "../../../workers/tutor/turn-context";
import { pageIndexSearch } from "../../../workers/tutor/retrieval/page-index";
import { searchTerms } from "../../../workers/tutor/language";
import { api } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { enrol, insertCourse, insertDocument, removeFixtures, unenrol, type FixtureCourse, type FixtureDocument } from "./access-fixtures";
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
  type Learner,
  type Turn,
} from "./helpers";

const OSPREY_QUESTION = "What is form OSPREY-3 used for in the quarterly ledger close?";
const HERON_QUESTION = "What does the HERON-5 freezer log record during cold chain checks?";
const VAULT_QUESTION = "Who signs the ALBATROSS vault keys register as custodian?";
const FINANCE_SECRET = { token: "OSPREY-3", phrase: "controller signs" };
const COLD_CHAIN_SECRET = { token: "HERON-5", phrase: "initials of the person" };
const VAULT_SECRET = { token: "ALBATROSS", phrase: "handed over" };

/**
 * Nothing of `document` anywhere the user could see it, nor in the prompt of the turn: `token`
 * (which the question also names) and `phrase` (only in the document's body) must not appear.
 */
function expectNothingOf(stack: Stack, turn: Turn, document: FixtureDocument, { token, phrase }: { token: string; phrase: string }, question: string): void {
  const named = (sources: Array<{ document: string; sourceId: string | null }>) =>
    sources.filter((s) => s.document === document.title || s.sourceId === document.id || document.chunkIds.includes(s.sourceId ?? ""));
  expect(named(turn.grounding.sources), "grounding.sources").to.deep.equal([]);
  expect(named(turn.answer?.metadata.sources ?? []), "stored metadata.sources").to.deep.equal([]);
  expect(named(turn.answer?.metadata.citations ?? []), "stored citations").to.deep.equal([]);
  expect(turn.answer?.content ?? "", "the stored answer").to.not.include(phrase);
  expect(turn.tokens, "the streamed answer").to.not.include(phrase);
  // The answer shown is the last one asked for (one started before the route was settled may have been discarded unseen).
  const generation = generationRequestsFor(stack, question).at(-1);
  expect(generation, "a generation request").to.not.equal(undefined);
  const prompt = promptOf(generation!);
  expect(prompt.split(question).join(""), "the prompt, apart from the question").to.not.include(token);
  expect(prompt).to.not.include(phrase);
  expect(promptOf(generation!)).to.not.include(document.title);
}

describe("the tutor, complete: who can read what inside an organisation", function () {
  this.timeout(60_000);
  let stack: Stack;
  let finance: Learner; // Finance department
  let warehouse: Learner; // Warehouse department, enrolled in Cold Chain
  let admin: Learner;
  let financeHandbook: FixtureDocument; // Finance only, chunked
  let coldChainDoc: FixtureDocument; // Cold Chain enrollees only, chunked
  let vaultRegister: FixtureDocument; // Finance only, full text only: the document rung
  let coldChain: FixtureCourse;
  let ledgerBasics: FixtureCourse; // thin course whose source is the Finance handbook
  let vaultCourse: FixtureCourse; // source: the vault register
  let archived: FixtureCourse;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    finance = await freshEmployee(stack, { department: "Finance" });
    warehouse = await freshEmployee(stack, { department: "Warehouse" });
    admin = await freshEmployee(stack, { role: "admin", department: "People" });

    coldChain = await insertCourse(stack, {
      title: "Cold Chain Basics",
      module: "Freezer checks",
      summary: "Daily freezer checks and the HERON-5 log.",
      lessons: [
        { title: "Logging freezer temperatures", content: "Every morning, record the PELICAN-9 probe reading of each freezer before the store opens." },
      ],
    });
    financeHandbook = await insertDocument(stack, {
      title: "Finance Close Handbook",
      departments: ["Finance"],
      chunked: true,
      sections: [
        {
          heading: "Quarterly close",
          body: "Form OSPREY-3 is used in the quarterly ledger close to list every open accrual; the controller signs form OSPREY-3 before the ledger is locked.",
        },
        { heading: "Deadlines", body: "The quarterly ledger close ends on the fifth working day. Late journal entries wait for the next period." },
      ],
    });
    coldChainDoc = await insertDocument(stack, {
      title: "Cold Chain Procedures",
      courseId: coldChain.id,
      chunked: true,
      sections: [
        {
          heading: "Freezer log",
          body: "The HERON-5 freezer log records the freezer temperature, the time of the check and the initials of the person who checked it during cold chain checks.",
        },
      ],
    });
    vaultRegister = await insertDocument(stack, {
      title: "Vault Keys Register",
      departments: ["Finance"],
      chunked: false,
      sections: [
        {
          heading: "Custodians",
          body: "The ALBATROSS vault keys register is signed by the custodian on duty. The custodian signs the register when the vault keys are handed over.",
        },
      ],
    });
    ledgerBasics = await insertCourse(stack, {
      title: "Ledger Basics",
      module: "The close",
      summary: "How the quarterly close works.",
      lessons: [{ title: "The close in brief", content: "The close locks the ledger." }],
      sourceDocumentId: financeHandbook.id,
    });
    vaultCourse = await insertCourse(stack, {
      title: "Vault Procedures",
      module: "Keys",
      summary: "Who holds the keys.",
      lessons: [{ title: "Keys", content: "Keys are kept safe." }],
      sourceDocumentId: vaultRegister.id,
    });
    archived = await insertCourse(stack, {
      title: "Old Till Training",
      module: "Tills",
      summary: "Old tills.",
      lessons: [{ title: "Tills", content: "Old tills." }],
      archived: true,
    });

    await enrol(stack, warehouse.userId, coldChain.id);
    for (const learner of [finance, warehouse]) {
      await enrol(stack, learner.userId, ledgerBasics.id);
      await enrol(stack, learner.userId, vaultCourse.id);
      await enrol(stack, learner.userId, archived.id);
    }
  });

  beforeEach(() => stack.llm.reset());
  afterEach(() => stack.llm.reset());
  after(async () => {
    await removeFixtures(stack);
    await removeFreshEmployees(stack);
  });

  describe("hybrid search (vector + keyword)", () => {
    it("searches only documents the reader may read, on both sides", async () => {
      const db = stack.server.deps.db;
      const [embedding] = await stack.workers.deps.llm.embed([OSPREY_QUESTION], "query");
      const search = async (learner: Learner) => {
        const reader = { orgId: DEMO_IDS.orgId, userId: learner.userId };
        const [vector, keyword] = await Promise.all([
          vectorSearch(db, { reader, embedding: embedding!, limit: 10, minSimilarity: 0 }),
          keywordSearch(db, { reader, words: searchTerms(OSPREY_QUESTION), limit: 10 }),
        ]);
        return { vector: vector.map((h) => h.id), keyword: keyword.map((h) => h.id) };
      };
      const allowed = await search(finance);
      expect(allowed.vector, "Finance: vector side").to.include(financeHandbook.chunkIds[0]);
      expect(allowed.keyword, "Finance: keyword side").to.include(financeHandbook.chunkIds[0]);
      const admins = await search(admin);
      expect(admins.vector, "admin: vector side").to.include(financeHandbook.chunkIds[0]);
      expect(admins.keyword, "admin: keyword side").to.include(financeHandbook.chunkIds[0]);
      const denied = await search(warehouse);
      for (const id of financeHandbook.chunkIds) {
        expect(denied.vector, "Warehouse: vector side").to.not.include(id);
        expect(denied.keyword, "Warehouse: keyword side").to.not.include(id);
      }
      expect(denied.vector.length, "the warehouse search still returns other chunks").to.be.greaterThan(0);
    });

    it("answers the Finance employee from the Finance handbook and the Warehouse employee without it", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const allowed = await ask(stack, finance, OSPREY_QUESTION);
      expect(allowed.grounding.sources.map((s) => s.sourceId)).to.include(financeHandbook.chunkIds[0]);
      expect(allowed.answer?.content).to.include("OSPREY-3");

      stack.llm.reset();
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const denied = await ask(stack, warehouse, OSPREY_QUESTION);
      expect(denied.errors).to.deep.equal([]);
      expectNothingOf(stack, denied, financeHandbook, FINANCE_SECRET, OSPREY_QUESTION);
    });

    it("keeps a course-restricted document to that course's enrollees", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const allowed = await ask(stack, warehouse, HERON_QUESTION);
      expect(allowed.grounding.sources.map((s) => s.sourceId)).to.include(coldChainDoc.chunkIds[0]);

      stack.llm.reset();
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const denied = await ask(stack, finance, HERON_QUESTION);
      expectNothingOf(stack, denied, coldChainDoc, COLD_CHAIN_SECRET, HERON_QUESTION);
    });

    it("lets an admin of the org read every document", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const turn = await ask(stack, admin, HERON_QUESTION);
      expect(turn.grounding.sources.map((s) => s.sourceId)).to.include(coldChainDoc.chunkIds[0]);
    });
  });

  describe("course context", () => {
    it("refuses a course the employee is not enrolled in (403 COURSE_NOT_AVAILABLE), and its lessons", async () => {
      const byCourse = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: finance.token,
        body: { message: "Explain this", context: { course_id: coldChain.id } },
      });
      expect(byCourse.status).to.equal(403);
      expect(byCourse.body.error.code).to.equal("COURSE_NOT_AVAILABLE");
      const byLesson = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: finance.token,
        body: { message: "Explain this", context: { lesson_id: coldChain.lessonIds[0] } },
      });
      expect(byLesson.status).to.equal(403);
      expect(byLesson.body.error.code).to.equal("COURSE_NOT_AVAILABLE");
      const archivedCourse = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: finance.token,
        body: { message: "Explain this", context: { course_id: archived.id } },
      });
      expect(archivedCourse.status, "an archived course, even when enrolled").to.equal(403);
      expect(archivedCourse.body.error.code).to.equal("COURSE_NOT_AVAILABLE");
      const unknown = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: finance.token,
        body: { message: "Explain this", context: { course_id: randomUUID() } },
      });
      expect(unknown.status).to.equal(404);
      expect(chatRequestsContaining(stack, CLASSIFY_MARKER), "nothing was queued").to.have.length(0);
    });

    it("refuses a lesson that is not in the given course (400)", async () => {
      const response = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: warehouse.token,
        body: { message: "Explain this", context: { course_id: ledgerBasics.id, lesson_id: coldChain.lessonIds[0] } },
      });
      expect(response.status).to.equal(400);
      expect(response.body.error.code).to.equal("VALIDATION_ERROR");
    });

    it("lets the enrolled employee and an admin use the course (PageIndex reads its lessons)", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const turn = await ask(stack, warehouse, "What do I record every morning?", { course_id: coldChain.id });
      expect(turn.grounding.sources[0]).to.include({ sourceType: "lesson", sourceId: coldChain.lessonIds[0] });
      expect(chatRequestsContaining(stack, MODULE_SELECTION_MARKER), "a course of one module: nothing for the model to choose").to.have.length(0);

      // Admins may use any course of their org, archived included (`ask` expects the 202).
      const asAdmin = await ask(stack, admin, "What are old tills?", { course_id: archived.id });
      expect(asAdmin.grounding.sources.map((s) => s.sourceId)).to.include(archived.lessonIds[0]);
    });

    it("discards unseen an answer started on a course the employee was unenrolled from while the model classified", async () => {
      const db = stack.server.deps.db;
      const late = await freshEmployee(stack, { department: "Warehouse" });
      await enrol(stack, late.userId, coldChain.id);
      let release!: () => void;
      const unenrolled = new Promise<void>((resolve) => (release = resolve));
      const base = scriptedResponder({ label: "in_course", modules: "1" });
      stack.llm.setResponder(async (request) => {
        // Hold the classification until the enrollment is gone: the course's answer has started meanwhile.
        if (promptOf(request).includes(CLASSIFY_MARKER)) await unenrolled;
        return base(request);
      });
      const question = "What do I record about each freezer every morning?";
      const pending = ask(stack, late, question, { course_id: coldChain.id });
      // The turn was accepted (the employee was enrolled then); the answer on the course starts while the model classifies.
      const classifying = () => chatRequestsContaining(stack, CLASSIFY_MARKER).filter((r) => promptOf(r).includes(question));
      for (let i = 0; i < 200 && (classifying().length === 0 || generationRequestsFor(stack, question).length === 0); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(classifying(), "the turn reached the classify stage").to.have.length(1);
      expect(promptOf(generationRequestsFor(stack, question)[0]!), "an answer on the course started, while the employee was enrolled").to.include("PELICAN-9");
      await unenrol(stack, late.userId, coldChain.id);
      expect(await db("enrollments").where({ user_id: late.userId, course_id: coldChain.id }).first()).to.equal(undefined);
      release();
      const turn = await pending;

      // Nothing of it was shown or stored: the turn was answered again without the course.
      expect(generationRequestsFor(stack, question)).to.have.length(2);
      expect(turn.grounding.sources.filter((s) => s.sourceType === "lesson")).to.deep.equal([]);
      expect(turn.tokens).to.not.include("PELICAN");
      expectNothingOf(stack, turn, coldChainDoc, COLD_CHAIN_SECRET, question);
      expect(promptOf(generationRequestsFor(stack, question).at(-1)!)).to.not.include("PELICAN-9");
    });

    it("discards unseen the answer started on the likeliest modules when the employee is unenrolled while the model chooses, and starts none on the course after", async () => {
      const db = stack.server.deps.db;
      const late = await freshEmployee(stack, { department: "Warehouse", enrolIn: ["returnsEssentials"] });
      const returns = DEMO_IDS.courseIds.returnsEssentials;
      let release!: () => void;
      const unenrolled = new Promise<void>((resolve) => (release = resolve));
      const base = scriptedResponder({ label: "in_course", modules: "3" });
      stack.llm.setResponder(async (request) => {
        // A question the lesson text does not decide: the model chooses the modules; hold it until the enrollment is gone.
        if (promptOf(request).includes(MODULE_SELECTION_MARKER)) await unenrolled;
        return base(request);
      });
      const question = "Can you go over this part once more?";
      const pending = ask(stack, late, question, { course_id: returns });
      const choosing = () => chatRequestsContaining(stack, MODULE_SELECTION_MARKER).filter((r) => promptOf(r).includes(question));
      for (let i = 0; i < 200 && (choosing().length === 0 || generationRequestsFor(stack, question).length === 0); i++)
        await new Promise((r) => setTimeout(r, 50));
      // The module titles reach the module-choice call, and an answer on the likeliest modules starts, while the employee is enrolled.
      expect(choosing(), "the modules were being chosen").to.have.length(1);
      expect(promptOf(choosing()[0]!)).to.include("Refunds and Exceptions");
      expect(promptOf(generationRequestsFor(stack, question)[0]!), "an answer on the course started, while the employee was enrolled").to.include(
        "Returns Essentials >",
      );
      await unenrol(stack, late.userId, returns);
      expect(await db("enrollments").where({ user_id: late.userId, course_id: returns }).first()).to.equal(undefined);
      release();
      const turn = await pending;

      // The model chose other modules: access is checked again before their answer, the course is dropped, and nothing of it was shown or stored.
      const generations = generationRequestsFor(stack, question);
      expect(generations, "the discarded answer, then the answer without the course").to.have.length(2);
      expect(promptOf(generations[1]!), "no later answer prompt holds a lesson").to.not.include("Returns Essentials >");
      expect(promptOf(generations[1]!)).to.not.include("Refunds always go back to the original payment method");
      expect(turn.tokens).to.not.include("Returns Essentials");
      expect(turn.grounding.sources.filter((s) => s.sourceType === "lesson")).to.deep.equal([]);
      expect(turn.answer?.metadata.sources ?? []).to.satisfy((sources: Array<{ sourceType: string }>) => sources.every((s) => s.sourceType !== "lesson"));
    });

    it("never reads a lesson of another course, even when a job names one (worker re-check and PageIndex)", async () => {
      const deps = stack.workers.deps;
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: warehouse.token,
        body: { message: "Hello", context: { course_id: ledgerBasics.id } },
      });
      expect(posted.status).to.equal(202);
      const payload = {
        orgId: DEMO_IDS.orgId,
        userId: warehouse.userId,
        sessionId: posted.body.session_id,
        turnId: posted.body.turn_id,
        messageId: posted.body.message_id,
        courseId: ledgerBasics.id,
        lessonId: coldChain.lessonIds[0]!,
      };
      const context = await loadTurnContext(deps, payload);
      expect(context.courseId).to.equal(ledgerBasics.id);
      expect(context.lessonId, "a lesson of another course is dropped").to.equal(null);
      const asFinance = await loadTurnContext(deps, { ...payload, userId: finance.userId, courseId: coldChain.id, lessonId: coldChain.lessonIds[0]! }).catch(
        (error: Error) => error,
      );
      // The session is the warehouse employee's: a forged job for someone else is refused outright.
      expect(asFinance).to.be.instanceOf(Error);

      stack.llm.setResponder(scriptedResponder({ modules: "1" }));
      const sources = await pageIndexSearch(deps, {
        orgId: DEMO_IDS.orgId,
        userId: warehouse.userId,
        courseId: ledgerBasics.id,
        courseTitle: ledgerBasics.title,
        lessonId: coldChain.lessonIds[0]!,
        question: "What is this?",
      });
      expect(sources.map((s) => s.sourceId)).to.deep.equal(ledgerBasics.lessonIds);
    });
  });

  describe("the scoped fallback", () => {
    const question = "Which form lists every open accrual in the quarterly ledger close?";

    it("tops thin lessons up with the course's source chunks only for a reader of that document", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const allowed = await ask(stack, finance, question, { course_id: ledgerBasics.id });
      expect(allowed.grounding).to.include({ rung: "chunks", source: "scoped_fallback" });
      expect(allowed.grounding.sources.map((s) => s.sourceId)).to.include(financeHandbook.chunkIds[0]);

      stack.llm.reset();
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const denied = await ask(stack, warehouse, question, { course_id: ledgerBasics.id });
      expect(denied.grounding).to.include({ rung: "chunks", source: "pageindex" });
      expect(denied.grounding.sources.map((s) => s.sourceId)).to.deep.equal(ledgerBasics.lessonIds);
      expectNothingOf(stack, denied, financeHandbook, FINANCE_SECRET, question);
    });
  });

  describe("the document rung", () => {
    // The rung is reached only when chunk search finds nothing, and the demo org holds whatever
    // earlier suites uploaded: one run in CI once found a chunk for this question. No vector hit
    // clears this floor, so only the keyword side (no other document has these words) could.
    let similarityFloor: number;
    before(() => {
      similarityFloor = stack.workers.deps.config.retrieval.RETRIEVAL_SIMILARITY_FLOOR;
      (stack.workers.deps.config.retrieval as { RETRIEVAL_SIMILARITY_FLOOR: number }).RETRIEVAL_SIMILARITY_FLOOR = 1.01;
    });
    after(() => {
      (stack.workers.deps.config.retrieval as { RETRIEVAL_SIMILARITY_FLOOR: number }).RETRIEVAL_SIMILARITY_FLOOR = similarityFloor;
    });

    it("reads a restricted source document only for a reader of it", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const allowed = await ask(stack, finance, VAULT_QUESTION);
      expect(allowed.grounding.rung, JSON.stringify(allowed.grounding.sources)).to.equal("document");
      expect(allowed.grounding.sources).to.have.length(1);
      expect(allowed.grounding.sources[0]).to.include({ sourceType: "document", sourceId: vaultRegister.id, document: "Vault Keys Register" });

      stack.llm.reset();
      stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
      const denied = await ask(stack, warehouse, VAULT_QUESTION);
      expect(denied.grounding).to.include({ rung: "general", source: "none" });
      expectNothingOf(stack, denied, vaultRegister, VAULT_SECRET, VAULT_QUESTION);
    });

    it("does not read it as the current course's document either", async () => {
      stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" }));
      const question = "Who is the ALBATROSS vault keys custodian on duty?";
      const denied = await ask(stack, warehouse, question, { course_id: vaultCourse.id });
      expect(denied.grounding.sources.filter((s) => s.sourceType === "document")).to.deep.equal([]);
      expectNothingOf(stack, denied, vaultRegister, VAULT_SECRET, question);
    });
  });
});
