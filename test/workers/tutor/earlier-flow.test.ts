/**
 * A rolling deploy: turns queued by the release before this one are three-job flows
 * (tutor-classify → tutor-retrieve → tutor-generate, the parent named `tutor-generate`). A worker
 * of this release still serves them through to one stored answer, with the stage events the
 * client always saw, while turns queued now are one `tutor-turn` job.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { FlowProducer } from "bullmq";
import { createSession } from "../../../db/queries/chat-sessions";
import { insertUserMessage } from "../../../db/queries/chat-messages";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { JOB_OPTIONS } from "../../../queues/job-options";
import { QUEUE_PREFIX } from "../../../queues/names";
import { join, waitForTurnEnd } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { freshEmployee, removeFreshEmployees, scriptedResponder, STAGE_EVENTS } from "./helpers";

describe("a tutor turn queued by the earlier release (a three-job flow)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let flows: FlowProducer;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    flows = new FlowProducer({ connection: stack.server.deps.redis, prefix: QUEUE_PREFIX });
  });
  afterEach(() => stack.llm.reset());
  after(async () => {
    await flows.close();
    await removeFreshEmployees(stack);
  });

  it("is answered once by this release's workers, its stages shown as before", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => "Returns are accepted within 30 days." }));
    const learner = await freshEmployee(stack);
    const db = stack.server.deps.db;
    const session = await createSession(db, { orgId: DEMO_IDS.orgId, userId: learner.userId }, { agentType: "tutor", title: "upgrade", context: {} });
    const turnId = randomUUID();
    const message = await insertUserMessage(db, { orgId: DEMO_IDS.orgId, sessionId: session.id, turnId, content: "How long do I have to return an item?" });
    expect(await join(learner.socket, { sessionId: session.id })).to.include({ ok: true });
    const data = { orgId: DEMO_IDS.orgId, userId: learner.userId, sessionId: session.id, turnId, messageId: message.id, courseId: null, lessonId: null };
    // Exactly what the earlier release's enqueueTutorTurn added.
    const child = { failParentOnFailure: true };
    await flows.add({
      name: "tutor-generate",
      queueName: "tutor-generate",
      data,
      opts: { ...JOB_OPTIONS["tutor-retrieve"], jobId: `${turnId}-generate` },
      children: [
        {
          name: "tutor-retrieve",
          queueName: "tutor-retrieve",
          data,
          opts: { ...JOB_OPTIONS["tutor-retrieve"], ...child, jobId: `${turnId}-retrieve` },
          children: [
            { name: "tutor-classify", queueName: "tutor-classify", data, opts: { ...JOB_OPTIONS["tutor-classify"], ...child, jobId: `${turnId}-classify` } },
          ],
        },
      ],
    });

    const events = await waitForTurnEnd(learner.events, turnId, 30_000);
    expect(events.filter((e) => e.event === "error")).to.deep.equal([]);
    expect(events.find((e) => e.event === "done")).to.not.equal(undefined);
    const stages = events.filter((e) => e.event === "stage").map((e) => `${e.payload.stage}:${e.payload.status}`);
    expect(stages).to.deep.equal(STAGE_EVENTS);
    const rows = await db("chat_messages").where({ turn_id: turnId, role: "assistant" });
    expect(rows.map((row) => [row.status, row.content])).to.deep.equal([["complete", "Returns are accepted within 30 days."]]);
    const producer = stack.server.deps.producer;
    for (const [queue, id] of [
      ["tutor-classify", `${turnId}-classify`],
      ["tutor-retrieve", `${turnId}-retrieve`],
      ["tutor-generate", `${turnId}-generate`],
    ] as const) {
      expect(await producer.queue(queue).getJobState(id), queue).to.equal("completed");
    }
  });
});
