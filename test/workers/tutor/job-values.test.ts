/**
 * What a tutor turn leaves in Redis: the turn's one job (its return value and progress kept a
 * day, shown in Bull Board) holds ids, never lesson or document text. The stage results it keeps
 * for a redelivered attempt live in turn-owned keys deleted once the answer is stored; an attempt
 * that finds the classification kept but the sources gone (expired, lost) retrieves again for
 * that intent, without asking the model to classify again, and still answers from the sources.
 */
import { expect } from "chai";
import { DEMO_IDS, lessonId } from "../../../db/seeds/demo-ids";
import { TUTOR_TURN_JOB_NAME } from "../../../queues/job-ids";
import { keepClassification } from "../../../workers/tutor/checkpoints";
import { api, join, waitForTurnEnd } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder, type Learner } from "./helpers";
import { CLASSIFY_MARKER, chatRequestsContaining, STAGE_EVENTS } from "./helpers";

const RETURNS = DEMO_IDS.courseIds.returnsEssentials;
const handoffKey = (turnId: string): string => `skillnet:turn:${turnId}:retrieval`;
const classificationKey = (turnId: string): string => `skillnet:turn:${turnId}:intent`;

describe("the tutor, complete: job return values", function () {
  this.timeout(60_000);
  let stack: Stack;
  let learner: Learner;
  const current = lessonId(0, 0, 1);
  let lessonText: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    const lesson = await stack.server.deps.db("lessons").where({ id: current }).first("content");
    // A stretch from the middle of the lesson: source text, not a title.
    lessonText = (lesson.content as string).slice(40, 120);
    expect(lessonText.length).to.be.greaterThan(40);
  });

  beforeEach(() => stack.llm.setResponder(scriptedResponder({ label: "in_course", modules: "1" })));
  afterEach(() => stack.llm.reset());
  after(() => removeFreshEmployees(stack));

  const turnJob = (turnId: string) => stack.server.deps.producer.queue("tutor-generate").getJob(`${turnId}-generate`);

  it("keeps no source text in the turn job, reports its stages, and drops the kept stage results once answered", async () => {
    const question = "How do I check the condition of returned goods?";
    const turn = await ask(stack, learner, question, { course_id: RETURNS, lesson_id: current });
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding.sources.length).to.be.greaterThan(0);
    // The sources did reach the model: the lesson text is in the generation prompt.
    expect(promptOf(generationRequestsFor(stack, question)[0]!)).to.include(lessonText);

    // The client sees each stage as it did when they were jobs of their own.
    const stages = turn.events.filter((e) => e.event === "stage").map((e) => `${e.payload.stage}:${e.payload.status}`);
    expect(stages).to.deep.equal(STAGE_EVENTS);

    const job = await turnJob(turn.turnId);
    expect(job!.name).to.equal(TUTOR_TURN_JOB_NAME);
    expect(job!.progress, "Bull Board shows the stage it ended in").to.deep.equal({ stage: "generate" });
    const stored = JSON.stringify([job!.returnvalue, job!.progress, job!.data]);
    expect(stored).to.not.include(lessonText);
    expect(stored).to.not.include('"content"');
    expect(stored.length).to.be.lessThan(2_000);

    const redis = stack.server.deps.redis;
    expect(await redis.exists(handoffKey(turn.turnId), classificationKey(turn.turnId))).to.equal(0, "kept stage results deleted after the answer was stored");
  });

  it("resumes at retrieval when the classification is kept but the sources are gone: no second classification", async () => {
    const generate = stack.workers.workers.find((worker) => worker.name === "tutor-generate")!;
    await generate.pause();
    const question = "What should I look at when goods come back damaged?";
    let turnId = "";
    try {
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: learner.token,
        body: { message: question, context: { course_id: RETURNS, lesson_id: current } },
      });
      expect(posted.status).to.equal(202);
      turnId = posted.body.turn_id;
      expect(await join(learner.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
      // As an attempt that classified and then died before its sources were kept (or they expired) leaves it.
      await keepClassification(stack.server.deps.redis, turnId, { intent: "in_course", decidedBy: "model" });
    } finally {
      generate.resume();
    }
    const events = await waitForTurnEnd(learner.events, turnId, 30_000);
    expect(events.filter((e) => e.event === "error")).to.deep.equal([]);
    expect(events.find((e) => e.event === "done")).to.not.equal(undefined);
    expect(
      chatRequestsContaining(stack, CLASSIFY_MARKER).filter((r) => promptOf(r).includes(question)),
      "not classified again",
    ).to.have.length(0);
    const stages = events.filter((e) => e.event === "stage").map((e) => `${e.payload.stage}:${e.payload.status}`);
    expect(stages).to.not.include("classify:started");
    expect(stages).to.include.members(["retrieve:started", "retrieve:completed", "generate:started"]);
    const [generation] = generationRequestsFor(stack, question);
    expect(promptOf(generation!)).to.include(lessonText, "retrieved for the kept intent");
  });

  it("names the stage that failed in Bull Board (progress and job log), retrying it silently until the turn ends once", async function () {
    this.timeout(60_000);
    const base = scriptedResponder({ label: "in_course", modules: "1" });
    stack.llm.setResponder(async (request) => {
      if (promptOf(request).includes(CLASSIFY_MARKER)) throw new Error("the classifier is down");
      return base(request);
    });
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "Which checks apply to returned goods?" } });
    expect(posted.status).to.equal(202);
    const turnId = posted.body.turn_id as string;
    expect(await join(learner.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
    const events = await waitForTurnEnd(learner.events, turnId, 50_000);
    // Nothing had streamed: the retries were not announced, the last failure ended the turn once.
    expect(events.filter((e) => e.event === "error").map((e) => Boolean(e.payload.willRetry))).to.deep.equal([false]);
    const job = await turnJob(turnId);
    expect(await job!.getState()).to.equal("failed");
    expect(job!.progress).to.deep.equal({ stage: "classify", failed: true });
    const { logs } = await stack.server.deps.producer.queue("tutor-generate").getJobLogs(job!.id!);
    expect(logs.length).to.equal(job!.attemptsMade);
    for (const line of logs) expect(line).to.match(/^classify failed: /);
  });
});
