/**
 * The lost-turn sweep, a BullMQ job scheduler on the `maintenance` queue: a turn whose question
 * is stored but whose jobs are gone (a flow lost with Redis) is failed with TURN_LOST once it
 * is past TURN_DEADLINE_MS — one `error` the client can act on and one `failed` message —
 * while turns with a live job, or still within the deadline, are left alone.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { findAction } from "../../db/queries/admin-actions";
import { proposeAction } from "../../commands/action-run";
import { createSession } from "../../db/queries/chat-sessions";
import { insertUserMessage } from "../../db/queries/chat-messages";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import type { RunningWorkers } from "../../workers/host";
import { maintenanceSchedule } from "../../workers/maintenance/schedule";
import { join, waitFor } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { freshEmployee, removeFreshEmployees, type Learner } from "../workers/tutor/helpers";
import { assistantRows, eventsOfTurn, startOwnWorkers } from "./helpers";

const TEN_MINUTES_AGO = () => new Date(Date.now() - 10 * 60_000);

describe("the lost-turn sweep", function () {
  this.timeout(60_000);
  let stack: Stack;
  let own: RunningWorkers | undefined;
  const liveJobs: Array<{ queue: "tutor-generate" | "admin-plan"; jobId: string }> = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  after(async () => {
    await own?.close();
    for (const { queue, jobId } of liveJobs) await stack.workers.deps.producer.queue(queue).remove(jobId);
    // Back to the stack's own timing for the suites that follow.
    await stack.workers.deps.producer.scheduleMaintenance(maintenanceSchedule(stack.config));
    await removeFreshEmployees(stack);
  });

  /** A stored question with no job at all, as after Redis lost the flow; `acceptedAt` backdates it. */
  async function storedTurn(learner: Learner, agentType: "tutor" | "admin", acceptedAt?: Date): Promise<{ sessionId: string; turnId: string }> {
    const db = stack.server.deps.db;
    const owner = { orgId: DEMO_IDS.orgId, userId: learner.userId };
    const session = await createSession(db, owner, { agentType, title: "lost", context: {} });
    const turnId = randomUUID();
    const row = await insertUserMessage(db, { orgId: owner.orgId, sessionId: session.id, turnId, content: `A question that was accepted (${agentType})` });
    if (acceptedAt) await db("chat_messages").where({ id: row.id }).update({ created_at: acceptedAt });
    expect(await join(learner.socket, { sessionId: session.id })).to.include({ ok: true });
    return { sessionId: session.id, turnId };
  }

  it("fails lost turns past the deadline with TURN_LOST, once, and leaves live and recent turns alone", async () => {
    const learner = await freshEmployee(stack);
    const admin = await freshEmployee(stack, { role: "admin" });
    const lost = await storedTurn(learner, "tutor", TEN_MINUTES_AGO());
    const lostAdmin = await storedTurn(admin, "admin", TEN_MINUTES_AGO());
    // What the lost admin turn had proposed before it was lost: never shown with an answer.
    const proposed = await proposeAction(
      { db: stack.server.deps.db },
      {
        orgId: DEMO_IDS.orgId,
        userId: admin.userId,
        sessionId: lostAdmin.sessionId,
        turnId: lostAdmin.turnId,
        tool: "archive_course",
        args: {},
        preview: "Archive a course",
        estimate: { items: 0, writes: 0, seconds: 0 },
        expiresAt: new Date(Date.now() + 3_600_000),
        items: [],
      },
    );
    const queued = await storedTurn(learner, "tutor", TEN_MINUTES_AGO());
    const recent = await storedTurn(learner, "tutor");
    // Still waiting in the queue (say, behind a long backlog): it will be answered, so it is not lost.
    const jobId = `${queued.turnId}-generate`;
    await stack.workers.deps.producer.queue("tutor-generate").add(
      "tutor-generate",
      {
        orgId: DEMO_IDS.orgId,
        userId: learner.userId,
        sessionId: queued.sessionId,
        turnId: queued.turnId,
        messageId: randomUUID(),
        courseId: null,
        lessonId: null,
      },
      { jobId, delay: 10 * 60_000 },
    );
    liveJobs.push({ queue: "tutor-generate", jobId });

    own = await startOwnWorkers({ WORKER_QUEUES: "maintenance", TURN_DEADLINE_MS: "60000", TURN_SWEEP_INTERVAL_MS: "500" });
    const schedulers = await stack.workers.deps.producer.queue("maintenance").getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).to.deep.equal(
      ["catalog-imports", "chat-retention", "lost-turns", "question-vectors", "stuck-documents", "vector-indexes"],
      "every sweep is a scheduler ops can see in Bull Board",
    );

    const swept = await waitFor(() => eventsOfTurn(learner.events, lost.turnId).find((e) => e.event === "error"), 20_000, "TURN_LOST for the lost tutor turn");
    expect(swept.payload).to.include({ code: "TURN_LOST", recoveryHint: "Send the message again." });
    expect(swept.payload.willRetry).to.equal(undefined);
    const adminError = await waitFor(
      () => eventsOfTurn(admin.events, lostAdmin.turnId).find((e) => e.event === "error"),
      20_000,
      "TURN_LOST for the lost admin turn",
    );
    expect(adminError.payload.code).to.equal("TURN_LOST");
    // Its proposal is withdrawn, and the admin's action card hears so.
    const withdrawn = await waitFor(
      () => admin.events.find((e) => (e.event as string) === "action_status" && e.payload.actionId === proposed.id),
      20_000,
      "the lost admin turn's proposal withdrawn",
    );
    expect(withdrawn.payload.status).to.equal("rejected");
    expect((await findAction(stack.server.deps.db, DEMO_IDS.orgId, proposed.id))?.status).to.equal("rejected");

    // A few more sweeps: nothing is said twice, and the live and recent turns stay open.
    // Counted by finish time, not by the completed count: the queue keeps only its newest finished
    // jobs, so after a long run that count stops growing while sweeps go on.
    const maintenance = stack.workers.deps.producer.queue("maintenance");
    const since = Date.now();
    const sweepsSince = async () =>
      (await maintenance.getCompleted(0, 99)).filter((job) => job.data.task === "lost-turns" && (job.finishedOn ?? 0) > since).length;
    await waitFor(async () => (await sweepsSince()) >= 3, 20_000, "three more lost-turn sweeps");
    expect(eventsOfTurn(learner.events, lost.turnId).filter((e) => e.event === "error")).to.have.length(1);
    const [row] = await assistantRows(stack, lost.turnId);
    expect(row).to.include({ status: "failed", content: "" });
    expect(row!.metadata).to.include({ swept: true, error_code: "TURN_LOST" });
    expect((await assistantRows(stack, lostAdmin.turnId))[0]!.metadata).to.include({ agent: "admin", error_code: "TURN_LOST" });
    for (const open of [queued, recent]) {
      expect(await assistantRows(stack, open.turnId)).to.have.length(0);
      expect(eventsOfTurn(learner.events, open.turnId)).to.have.length(0);
    }
  });
});
