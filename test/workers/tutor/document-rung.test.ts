/**
 * The document rung stays bounded however long the document is: ranking reads the stored
 * tsvector of a bounded prefix (never to_tsvector over the whole text per request), and only a
 * bounded prefix of the chosen text leaves the database and reaches the tokeniser.
 */
import { expect } from "chai";
import { courseDocumentCandidates, documentTextPrefix } from "../../../db/queries/learner";
import { RANKED_PREFIX_CHARS } from "../../../db/migrations/20261129000008_document_access";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { CHARS_PER_TOKEN_CAP } from "../../../workers/tutor/retrieval/ladder";
import { contentTermsOf } from "../../../workers/tutor/retrieval/question-terms";
import { useStack, type Stack } from "../../support/stack";
import { enrol, insertCourse, insertDocument, removeFixtures, type FixtureDocument } from "./access-fixtures";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder, type Learner } from "./helpers";

const FILLER = "Shelf labels are printed every Monday and checked against the planogram by the night team. ";

describe("the tutor, complete: the document rung on a multi-megabyte document", function () {
  this.timeout(60_000);
  let stack: Stack;
  let learner: Learner;
  let manual: FixtureDocument;
  let fullLength = 0;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    learner = await freshEmployee(stack);
    const head = "# Store Operations Encyclopedia\n\nThe MARMOT-2 checklist covers opening the store: lights, tills, alarms and the safe.\n\n";
    // ~4 MB; a word that only appears far beyond the ranked prefix.
    const body = FILLER.repeat(Math.ceil(4_000_000 / FILLER.length));
    const fullText = `${head}${body}\n\nThe ZEPHYR-1 procedure is only described at the very end.`;
    fullLength = fullText.length;
    manual = await insertDocument(stack, { title: "Store Operations Encyclopedia", chunked: false, sections: [], fullText });
    const course = await insertCourse(stack, {
      title: "Store Operations",
      module: "Opening",
      summary: "Opening the store.",
      lessons: [{ title: "Opening", content: "Open on time." }],
      sourceDocumentId: manual.id,
    });
    await enrol(stack, learner.userId, course.id);
  });

  afterEach(() => stack.llm.reset());
  after(async () => {
    await removeFixtures(stack);
    await removeFreshEmployees(stack);
  });

  it("matches terms against the stored prefix tsvector and returns at most maxChars of the text", async () => {
    const db = stack.server.deps.db;
    expect(fullLength).to.be.greaterThan(4_000_000);
    const stored = await db("documents").where({ id: manual.id }).first(db.raw("length(full_text_tsv::text) AS tsv_chars"));
    expect(Number(stored.tsv_chars), "the stored tsvector covers only a prefix").to.be.greaterThan(0).and.lessThan(RANKED_PREFIX_CHARS);

    const reader = { orgId: DEMO_IDS.orgId, userId: learner.userId };
    const maxChars = 3_000 * CHARS_PER_TOKEN_CAP;
    const terms = (question: string) => contentTermsOf(question).map((term) => term.query);
    const started = performance.now();
    const [candidate] = (await courseDocumentCandidates(db, reader, { currentCourseId: null, terms: terms("What is on the MARMOT-2 checklist?") })).filter(
      (c) => c.document_id === manual.id,
    );
    const prefix = await documentTextPrefix(db, DEMO_IDS.orgId, manual.id, maxChars);
    const ms = performance.now() - started;
    expect(candidate?.matched, "marmot, checklist").to.deep.equal([true, true]);
    expect(prefix!.text.length).to.equal(maxChars);
    expect(prefix!.cut).to.equal(true);
    expect(ms, "bounded queries, generous bound for a shared machine").to.be.lessThan(5_000);

    // A word only past the ranked prefix does not make the document match.
    const [late] = (await courseDocumentCandidates(db, reader, { currentCourseId: null, terms: terms("What is the ZEPHYR-1 procedure?") })).filter(
      (c) => c.document_id === manual.id,
    );
    expect(late?.matched[0], "zephyr").to.equal(false);
  });

  it("answers from a truncated prefix, marked as truncated, within a bound", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course" }));
    const question = "What does the MARMOT-2 checklist cover?";
    const started = performance.now();
    const turn = await ask(stack, learner, question);
    const ms = performance.now() - started;
    expect(turn.grounding).to.include({ rung: "document" });
    expect(turn.grounding.sources[0]).to.include({ sourceType: "document", sourceId: manual.id });
    expect(turn.answer?.metadata.truncated).to.equal(true);
    const prompt = promptOf(generationRequestsFor(stack, question)[0]!);
    expect(prompt).to.include("MARMOT-2 checklist covers opening the store");
    expect(prompt).to.include("the rest of this document was cut");
    expect(prompt.length, "the prompt carries a prefix, not the document").to.be.lessThan(60_000);
    expect(ms, "the whole turn, generous bound for a shared machine").to.be.lessThan(20_000);
  });
});
