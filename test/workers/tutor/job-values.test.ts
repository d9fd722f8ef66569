/**
 * What a tutor turn leaves in Redis: the retrieve job's return value (kept a day, shown in Bull
 * Board) is a summary — rung, counts, source ids — never lesson or document text. The text goes
 * to generate through a turn-owned key that is deleted once the answer is stored; a generate
 * that finds the key gone (expired, lost) retrieves again and still answers from the sources.
 */
import { expect } from "chai";
import { DEMO_IDS, lessonId } from "../../../db/seeds/demo-ids";
import { HANDOFF_TTL_SECONDS } from "../../../workers/tutor/retrieval/handoff";
import { api, join, waitFor, waitForTurnEnd } from "../../support/client";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder, type Learner } from "./helpers";

const RETURNS = DEMO_IDS.courseIds.returnsEssentials;
const handoffKey = (turnId: string): string => `skillnet:turn:${turnId}:retrieval`;

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

  const retrieveJob = (turnId: string) => stack.server.deps.producer.queue("tutor-retrieve").getJob(`${turnId}-retrieve`);

  it("keeps only a summary as the retrieve job's return value, and drops the hand-off once answered", async () => {
    const question = "How do I check the condition of returned goods?";
    const turn = await ask(stack, learner, question, { course_id: RETURNS, lesson_id: current });
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding.sources.length).to.be.greaterThan(0);
    // The sources did reach the model: the lesson text is in the generation prompt.
    expect(promptOf(generationRequestsFor(stack, question)[0]!)).to.include(lessonText);

    const job = await retrieveJob(turn.turnId);
    const kept = job!.returnvalue as Record<string, any>;
    expect(kept).to.include({ intent: "in_course", rung: turn.grounding.rung, source: turn.grounding.source, sourceCount: turn.grounding.sources.length });
    expect(kept.sources).to.deep.equal(turn.grounding.sources.map(({ index, sourceType, sourceId }) => ({ index, sourceType, sourceId })));
    const stored = JSON.stringify(kept);
    expect(stored).to.not.include(lessonText);
    expect(stored).to.not.include('"content"');
    expect(stored.length).to.be.lessThan(2_000);

    expect(await stack.server.deps.redis.exists(handoffKey(turn.turnId))).to.equal(0, "hand-off deleted after the answer was stored");
  });

  it("answers from the sources even when the hand-off is gone before generate runs", async () => {
    const generate = stack.workers.workers.find((worker) => worker.name === "tutor-generate")!;
    await generate.pause();
    let turnId = "";
    try {
      const question = "What should I look at when goods come back damaged?";
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: learner.token,
        body: { message: question, context: { course_id: RETURNS, lesson_id: current } },
      });
      expect(posted.status).to.equal(202);
      turnId = posted.body.turn_id;
      expect(await join(learner.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
      await waitFor(async () => (await retrieveJob(turnId))?.finishedOn, 20_000, "retrieve to finish");

      const ttl = await stack.server.deps.redis.ttl(handoffKey(turnId));
      expect(ttl).to.be.within(1, HANDOFF_TTL_SECONDS);
      // As if it had expired, or Redis had lost it.
      await stack.server.deps.redis.del(handoffKey(turnId));
    } finally {
      generate.resume();
    }
    const events = await waitForTurnEnd(learner.events, turnId, 30_000);
    expect(events.filter((e) => e.event === "error")).to.deep.equal([]);
    const done = events.find((e) => e.event === "done");
    expect(done).to.not.equal(undefined);
    const [generation] = generationRequestsFor(stack, "What should I look at when goods come back damaged?");
    expect(promptOf(generation!)).to.include(lessonText, "retrieved again for the same intent");
  });
});
