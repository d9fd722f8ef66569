/**
 * One model round trip before the first token (issue 48): a question the organisation's material
 * answers is settled by its sources without a classification call; an open question's answer
 * starts while the model classifies, its tokens held until the verdict, and is discarded unseen
 * (then generated again on the right route) when the verdict disagrees.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { ChatRequest } from "../../../offline-model/responder";
import { api, upload, waitFor } from "../../harness/client";
import { offlineReply } from "../../../offline-model/offline-responder";
import { stackSuite } from "../../support/suite";
import { DEMO_IDS, lessonId } from "../../../db/seeds/demo-ids";
import {
  ask,
  CLASSIFY_MARKER,
  chatRequestsContaining,
  freshEmployee,
  generationRequestsFor,
  MODULE_SELECTION_MARKER,
  promptOf,
  removeFreshEmployees,
  signIn,
  STAGE_EVENTS,
  type Learner,
} from "./helpers";

const OFF_TOPIC_LINE = "This is outside work and learning";
const OPEN_QUESTION = "Who won the 1998 football world cup?";

describe("the tutor, complete: one model round trip before the first token", function () {
  const stack = stackSuite(this, { cleanUp: removeFreshEmployees });
  let learner: Learner;

  beforeEach(async () => {
    learner = await freshEmployee(stack);
  });

  const classifications = (question: string) => stack.llm.chatCalls().filter((r) => promptOf(r).includes(CLASSIFY_MARKER) && promptOf(r).includes(question));
  const stagesOf = (events: Array<{ event: string; payload: Record<string, unknown> }>) =>
    events.filter((e) => e.event === "stage").map((e) => `${e.payload.stage}:${e.payload.status}`);

  /**
   * The classification of `question` answers `label`, but only once its answer's generation request
   * has arrived (or after `patienceMs`, so a pipeline that waits for the verdict first still ends).
   */
  function classifyAfterGeneration(question: string, label: string, patienceMs: number, generation: (request: ChatRequest) => string) {
    const seen = { generationBeforeVerdict: false };
    stack.llm.setResponder(async (request) => {
      const prompt = promptOf(request);
      if (prompt.includes(CLASSIFY_MARKER) && prompt.includes(question)) {
        const deadline = Date.now() + patienceMs;
        while (Date.now() < deadline && generationRequestsFor(stack, question).length === 0) await new Promise((r) => setTimeout(r, 20));
        seen.generationBeforeVerdict = generationRequestsFor(stack, question).length > 0;
        // Long enough for the held answer to have streamed a few tokens.
        await new Promise((r) => setTimeout(r, 150));
        return { content: label };
      }
      if (request.stream && prompt.includes(question)) return { content: generation(request) };
      return offlineReply(request);
    });
    return seen;
  }

  it("settles a question the organisation's material answers by its sources, without a classification call", async () => {
    const question = "How many days do customers have to return an item for a refund?";
    const turn = await ask(stack, learner, question);

    expect(classifications(question), "no classification call").to.have.length(0);
    expect(generationRequestsFor(stack, question)).to.have.length(1);
    expect(turn.grounding).to.include({ rung: "chunks", source: "semantic" });
    expect(turn.answer?.metadata).to.include({ intent: "cross_course", rung: "chunks" });
    expect(stagesOf(turn.events)).to.deep.equal(STAGE_EVENTS);
    const classified = turn.events.find((e) => e.event === "stage" && e.payload.stage === "classify" && e.payload.status === "completed");
    expect(classified?.payload.detail).to.equal("cross_course");
  });

  it("starts the answer of an open question while the model classifies it, and shows it once the verdict agrees", async () => {
    const seen = classifyAfterGeneration(OPEN_QUESTION, "off_topic", 3_000, () => "Spain did not win that one, France did. Can I help with your courses?");
    const turn = await ask(stack, learner, OPEN_QUESTION);

    expect(seen.generationBeforeVerdict, "the answer was asked for before the classification was answered").to.equal(true);
    expect(classifications(OPEN_QUESTION)).to.have.length(1);
    const generations = generationRequestsFor(stack, OPEN_QUESTION);
    expect(generations, "the speculative answer was the answer: no second generation").to.have.length(1);
    expect(promptOf(generations[0]!)).to.include(OFF_TOPIC_LINE);
    expect(turn.tokens).to.equal("Spain did not win that one, France did. Can I help with your courses?");
    expect(turn.answer?.content).to.equal(turn.tokens);
    expect(turn.answer?.metadata).to.include({ intent: "off_topic", rung: "general" });
    // The client sees the stages in their usual order, and no token before the answer's stage starts.
    expect(stagesOf(turn.events)).to.deep.equal(STAGE_EVENTS);
    expect(turn.names.indexOf("token")).to.be.greaterThan(turn.events.findIndex((e) => e.event === "stage" && e.payload.stage === "generate"));
  });

  it("speculates on company knowledge for a follow-up that names nothing, and keeps that answer when the verdict agrees", async () => {
    const question = "How long does that take?";
    const seen = classifyAfterGeneration(question, "cross_course", 3_000, () => "It usually takes a few days.");
    const turn = await ask(stack, learner, question);

    expect(seen.generationBeforeVerdict).to.equal(true);
    const generations = generationRequestsFor(stack, question);
    expect(generations, "no second generation").to.have.length(1);
    expect(promptOf(generations[0]!)).to.not.include(OFF_TOPIC_LINE);
    expect(turn.tokens).to.equal("It usually takes a few days.");
    expect(turn.answer?.metadata).to.include({ intent: "cross_course", rung: "general" });
  });

  it("discards a speculative answer the verdict disagrees with: none of its tokens reach the client, the right route answers", async () => {
    const seen = classifyAfterGeneration(OPEN_QUESTION, "cross_course", 3_000, (request) =>
      promptOf(request).includes(OFF_TOPIC_LINE) ? "DISCARDED off-topic answer, never to be shown." : "General knowledge: France won the 1998 world cup.",
    );
    const turn = await ask(stack, learner, OPEN_QUESTION);

    expect(seen.generationBeforeVerdict).to.equal(true);
    const generations = generationRequestsFor(stack, OPEN_QUESTION);
    expect(generations, "the speculative answer, then the answer on the classified route").to.have.length(2);
    expect(promptOf(generations[0]!)).to.include(OFF_TOPIC_LINE);
    expect(promptOf(generations[1]!)).to.not.include(OFF_TOPIC_LINE);
    expect(turn.tokens).to.equal("General knowledge: France won the 1998 world cup.");
    expect(turn.tokens).to.not.include("DISCARDED");
    expect(turn.answer?.content).to.equal(turn.tokens);
    expect(turn.answer?.metadata).to.include({ intent: "cross_course", rung: "general" });
    expect(stagesOf(turn.events), "nothing to take back: no restart").to.deep.equal(STAGE_EVENTS);

    // The discarded answer was read by the model: its prompt counts against the organisation's allowance, as the answer's does.
    const generationUsage = () => stack.server.deps.db("llm_usage_log").where({ user_id: learner.userId, use_case: "generation" }).orderBy("created_at");
    for (let i = 0; i < 100 && (await generationUsage()).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const usage = await generationUsage();
    expect(usage, "the discarded answer and the answer shown").to.have.length(2);
    for (const row of usage) {
      expect(row.org_id).to.equal(DEMO_IDS.orgId);
      expect(row.prompt_tokens).to.be.greaterThan(100);
    }
  });

  it("inside a course, starts the answer on the module the lesson text settles while the model classifies: no module-choice call", async () => {
    const enrolled = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    const question = "How do I count the 30 days?";
    const seen = classifyAfterGeneration(question, "in_course", 3_000, () => "Start the day after the purchase [1].");
    const turn = await ask(stack, enrolled, question, { course_id: DEMO_IDS.courseIds.returnsEssentials });

    expect(seen.generationBeforeVerdict, "the answer was asked for before the classification was answered").to.equal(true);
    expect(
      chatRequestsContaining(stack, MODULE_SELECTION_MARKER).filter((r) => promptOf(r).includes(question)),
      "no module-choice call",
    ).to.have.length(0);
    const generations = generationRequestsFor(stack, question);
    expect(generations, "the speculative answer was the answer").to.have.length(1);
    expect(promptOf(generations[0]!)).to.include("Returns Essentials > The Refund Window and Item Condition > Counting the 30 days");
    expect(turn.tokens).to.equal("Start the day after the purchase [1].");
    expect(turn.answer?.metadata).to.include({ intent: "in_course" });
    expect(turn.grounding.sources[0]).to.include({ sourceType: "lesson", sourceId: lessonId(0, 0, 0) });
    expect(stagesOf(turn.events)).to.deep.equal(STAGE_EVENTS);
  });

  describe("inside a course, when several modules hold the question", () => {
    const question = "Which items can we not take back?";
    const MODULE_1_LESSON = "Returns Essentials > The Refund Window and Item Condition > Counting the 30 days";
    const MODULE_3_LESSON = "Returns Essentials > Refunds and Exceptions > Items we cannot take back";

    /** The model chooses `modules` and classifies in_course, each only once an answer's generation request has arrived. */
    function chooseAfterGeneration(modules: string) {
      const seen = { generationBeforeChoice: false };
      const afterGeneration = async () => {
        const deadline = Date.now() + 3_000;
        while (Date.now() < deadline && generationRequestsFor(stack, question).length === 0) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 100));
      };
      stack.llm.setResponder(async (request) => {
        const prompt = promptOf(request);
        if (prompt.includes(MODULE_SELECTION_MARKER) && prompt.includes(question)) {
          await afterGeneration();
          seen.generationBeforeChoice = generationRequestsFor(stack, question).length > 0;
          return { content: modules };
        }
        if (prompt.includes(CLASSIFY_MARKER) && prompt.includes(question)) {
          await afterGeneration();
          return { content: "in_course" };
        }
        if (request.stream && prompt.includes(question))
          return { content: prompt.includes(MODULE_1_LESSON) ? "DISCARDED: modules 1 and 3 [1]." : "Gift cards and final-sale items [1]." };
        return offlineReply(request);
      });
      return seen;
    }

    it("starts the answer on those modules while the model chooses, and keeps it when the model chooses them", async () => {
      const enrolled = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
      const seen = chooseAfterGeneration("1, 3");
      const turn = await ask(stack, enrolled, question, { course_id: DEMO_IDS.courseIds.returnsEssentials });

      expect(seen.generationBeforeChoice, "the answer was asked for before the module choice was answered").to.equal(true);
      const generations = generationRequestsFor(stack, question);
      expect(generations, "the answer started on the likeliest modules was the answer").to.have.length(1);
      expect(promptOf(generations[0]!)).to.include(MODULE_1_LESSON).and.to.include(MODULE_3_LESSON);
      expect(turn.answer?.metadata).to.include({ intent: "in_course" });
      expect(stagesOf(turn.events)).to.deep.equal(STAGE_EVENTS);
    });

    it("discards that answer unseen when the model chooses other modules, and answers on the model's choice", async () => {
      const enrolled = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
      const seen = chooseAfterGeneration("3");
      const turn = await ask(stack, enrolled, question, { course_id: DEMO_IDS.courseIds.returnsEssentials });

      expect(seen.generationBeforeChoice).to.equal(true);
      const generations = generationRequestsFor(stack, question);
      expect(generations, "the likeliest modules' answer, then the model's choice's").to.have.length(2);
      expect(promptOf(generations[1]!)).to.include(MODULE_3_LESSON).and.not.to.include(MODULE_1_LESSON);
      expect(turn.tokens).to.equal("Gift cards and final-sale items [1].");
      expect(turn.answer?.content).to.equal(turn.tokens);
      expect(turn.grounding.sources.filter((s) => s.sourceType === "lesson").map((s) => s.section)).to.deep.equal([
        "Refunds and Exceptions > Refunding to the original payment method",
        "Refunds and Exceptions > Items we cannot take back",
      ]);
      expect(stagesOf(turn.events), "nothing to take back: no restart").to.deep.equal(STAGE_EVENTS);
    });
  });

  describe("inside a course, when no module's text holds every term of the question", () => {
    // "swimwear" is only in module 3; exchanges and the 30 days are in module 2, which holds most of the question.
    const question = "Can a customer exchange swimwear after 30 days?";
    const MODULE_2_LESSON = "Returns Essentials > Receipts and Exchanges > Processing an exchange";
    const MODULE_3_LESSON = "Returns Essentials > Refunds and Exceptions > Items we cannot take back";

    /** The model chooses `modules` and classifies in_course, each only once an answer's generation request has arrived. */
    function chooseAfterGeneration(modules: string) {
      const seen = { generationBeforeChoice: false };
      const afterGeneration = async () => {
        const deadline = Date.now() + 3_000;
        while (Date.now() < deadline && generationRequestsFor(stack, question).length === 0) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 100));
      };
      stack.llm.setResponder(async (request) => {
        const prompt = promptOf(request);
        if (prompt.includes(MODULE_SELECTION_MARKER) && prompt.includes(question)) {
          await afterGeneration();
          seen.generationBeforeChoice = generationRequestsFor(stack, question).length > 0;
          return { content: modules };
        }
        if (prompt.includes(CLASSIFY_MARKER) && prompt.includes(question)) {
          await afterGeneration();
          return { content: "in_course" };
        }
        if (request.stream && prompt.includes(question))
          return {
            content: prompt.includes(MODULE_2_LESSON)
              ? "Exchanges are possible within 30 days [1]."
              : "Swimwear without its hygiene seal cannot be returned [1].",
          };
        return offlineReply(request);
      });
      return seen;
    }

    it("starts the answer on the module holding most of it while the model chooses, and keeps it when the model chooses that module", async () => {
      const enrolled = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
      const seen = chooseAfterGeneration("2");
      const turn = await ask(stack, enrolled, question, { course_id: DEMO_IDS.courseIds.returnsEssentials });

      expect(seen.generationBeforeChoice, "the answer was asked for before the module choice was answered").to.equal(true);
      expect(
        chatRequestsContaining(stack, MODULE_SELECTION_MARKER).filter((r) => promptOf(r).includes(question)),
        "the model chose",
      ).to.have.length(1);
      const generations = generationRequestsFor(stack, question);
      expect(generations, "the answer started on the likeliest module was the answer").to.have.length(1);
      expect(promptOf(generations[0]!)).to.include(MODULE_2_LESSON).and.not.to.include(MODULE_3_LESSON).and.not.to.include("Counting the 30 days");
      expect(turn.tokens).to.equal("Exchanges are possible within 30 days [1].");
      expect(turn.answer?.metadata).to.include({ intent: "in_course" });
      expect(stagesOf(turn.events)).to.deep.equal(STAGE_EVENTS);
    });

    it("discards that answer unseen when the model chooses another module, and answers on the model's choice", async () => {
      const enrolled = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
      const seen = chooseAfterGeneration("3");
      const turn = await ask(stack, enrolled, question, { course_id: DEMO_IDS.courseIds.returnsEssentials });

      expect(seen.generationBeforeChoice).to.equal(true);
      const generations = generationRequestsFor(stack, question);
      expect(generations, "the likeliest module's answer, then the model's choice's").to.have.length(2);
      expect(promptOf(generations[0]!)).to.include(MODULE_2_LESSON);
      expect(promptOf(generations[1]!)).to.include(MODULE_3_LESSON).and.not.to.include(MODULE_2_LESSON);
      expect(turn.tokens).to.equal("Swimwear without its hygiene seal cannot be returned [1].");
      expect(turn.tokens, "no token of the discarded answer").to.not.include("Exchanges are possible");
      expect(turn.answer?.content).to.equal(turn.tokens);
      expect(stagesOf(turn.events), "nothing to take back: no restart").to.deep.equal(STAGE_EVENTS);

      // The discarded answer was read by the model: it is charged to the organisation, as the answer shown is.
      const generationUsage = () => stack.server.deps.db("llm_usage_log").where({ user_id: enrolled.userId, use_case: "generation" });
      for (let i = 0; i < 100 && (await generationUsage()).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await generationUsage(), "the discarded answer and the answer shown").to.have.length(2);
    });
  });

  describe("with a second organisation whose material answers what the demo's does not", () => {
    const question = "How many sick days do I get per year?";
    let otherOrgId: string;
    let other: Learner;

    before(async function () {
      this.timeout(60_000);
      const db = stack.server.deps.db;
      const tag = randomUUID().slice(0, 8);
      [{ id: otherOrgId }] = await db("organizations")
        .insert({ name: "Sick Leave Ltd", slug: `sick-leave-rt-${tag}` })
        .returning("id");
      await db("users").insert([
        { org_id: otherOrgId, email: `hr-rt-${tag}@example.com`, name: "HR Admin", role: "admin", department: "HR", locale: "en" },
        { org_id: otherOrgId, email: `staff-rt-${tag}@example.com`, name: "Staff Member", role: "employee", department: "Shop", locale: "en" },
      ]);
      const admin = await signIn(stack, `hr-rt-${tag}@example.com`);
      admin.socket.disconnect();
      const policy =
        "# Sick Leave Policy\n\n## Paid sick days\n\nEvery employee gets 12 paid sick days per year. Tell your manager before your shift starts.\n";
      const posted = await upload(stack.baseUrl, admin.token, { name: "sick-leave.md", bytes: Buffer.from(policy), type: "text/markdown" });
      expect(posted.status, JSON.stringify(posted.body)).to.be.oneOf([200, 202]);
      await waitFor(
        async () => {
          const current = await api(stack.baseUrl, "GET", `/api/v1/documents/${posted.body.document_id}`, { token: admin.token });
          return current.body.status === "COMPLETED" ? current.body : undefined;
        },
        30_000,
        "the sick leave policy indexed",
      );
      other = await signIn(stack, `staff-rt-${tag}@example.com`);
    });

    after(async () => {
      other?.socket.disconnect();
      if (otherOrgId) await stack.server.deps.db("organizations").where({ id: otherOrgId }).delete();
    });

    it("settles the question by that organisation's own policy, and never by it for the demo's employee", async () => {
      const own = await ask(stack, other, question);
      expect(own.grounding.rung).to.equal("chunks");
      expect(own.answer?.metadata).to.include({ intent: "cross_course" });
      expect(classifications(question), "settled by its own sources: no classification call").to.have.length(0);

      // The other organisation's policy is not the demo's evidence: its employee's turn is classified, and nothing of the policy reaches any of its prompts.
      const demo = await ask(stack, learner, question);
      expect(classifications(question)).to.have.length(1);
      expect(demo.grounding.rung).to.equal("general");
      expect(demo.grounding.sources).to.deep.equal([]);
      const prompts = stack.llm.chatCalls().filter((r) => promptOf(r).includes(question) && !promptOf(r).includes("Sick Leave Ltd"));
      for (const request of prompts) expect(promptOf(request)).to.not.include("12 paid sick days");
      expect(demo.answer?.content).to.not.match(/12 paid sick days/);
    });
  });
});
