/**
 * The turn commands against the database lane: start-turn (store, then queue, or undo this
 * request's rows) and cancel-turn (owner only, only while the turn runs).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { cancelTurn } from "../../../commands/cancel-turn";
import { Refusal } from "../../../lib/refusal";
import { startTurn } from "../../../commands/start-turn";
import { insertAssistantMessageOnce } from "../../../db/queries/chat-messages";
import { isTurnCancelled } from "../../../workers/turns/turn-state";
import { commandSuite, adminSession, freshPerson, refusingProducer } from "./helpers";

const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("commands: turns", function () {
  const lane = commandSuite(this);
  let orgId: string;
  before(() => {
    orgId = lane.orgId;
  });

  it("start-turn refuses a session that is not the caller's (404) and a second admin turn while one runs (409)", async () => {
    const admin = await freshPerson(lane, "admin");
    const other = await freshPerson(lane, "admin");
    const { sessionId, turnId } = await adminSession(lane, admin.id);
    // The server counts accepted turns for /metrics; no server here.
    const deps = { ...lane.deps, metrics: { turnAccepted: () => undefined } };

    const notTheirs = await refusal(startTurn(deps, { orgId, userId: other.id }, { agentType: "admin", message: "hello", sessionId }));
    expect(notTheirs).to.be.instanceOf(Refusal);
    expect(notTheirs).to.include({ kind: "not_found", code: "NOT_FOUND", message: "Chat session not found" });

    const busy = await refusal(startTurn(deps, { orgId, userId: admin.id }, { agentType: "admin", message: "and another thing", sessionId }));
    expect(busy).to.include({ kind: "conflict", code: "TURN_IN_PROGRESS" });
    expect((busy as Refusal).details).to.deep.equal({ turn_id: turnId });
  });

  it("start-turn with the queue refusing removes the message and the session it created: QUEUE_UNAVAILABLE", async () => {
    const learner = await freshPerson(lane);
    const producer = await refusingProducer(lane);
    const message = `Nobody queues this ${randomUUID()}`;
    const accepted: string[] = [];
    const metrics = { turnAccepted: (turnId: string) => void accepted.push(turnId) };
    try {
      const refused = await refusal(
        startTurn(
          { ...lane.deps, producer, metrics },
          { orgId, userId: learner.id },
          {
            agentType: "tutor",
            message,
            sessionId: undefined,
            courseId: null,
            lessonId: null,
            requestContext: {},
          },
        ),
      );
      expect(refused).to.include({ kind: "unavailable", code: "QUEUE_UNAVAILABLE" });
      expect(accepted, "a turn the queue refused is not counted as accepted").to.deep.equal([]);
      // The same command with a queue that takes it counts the turn, once.
      const started = await startTurn(
        { ...lane.deps, metrics },
        { orgId, userId: learner.id },
        { agentType: "tutor", message: `${message} (queued)`, sessionId: undefined, courseId: null, lessonId: null, requestContext: {} },
      );
      expect(accepted).to.deep.equal([started.turn_id]);
    } finally {
      await producer.close().catch(() => undefined);
    }
    const db = lane.deps.db;
    expect(await db("chat_messages").where({ content: message }).first("id")).to.equal(undefined);
    expect(await db("chat_sessions").where({ user_id: learner.id, title: message }).first("id")).to.equal(undefined);
  });

  it("cancel-turn: 404 for someone else's turn, 409 for an ended one, else raises the turn's cancel flag", async () => {
    const admin = await freshPerson(lane, "admin");
    const other = await freshPerson(lane, "admin");
    const deps = lane.deps;
    const running = await adminSession(lane, admin.id);

    const notTheirs = await refusal(cancelTurn(deps, { orgId, userId: other.id }, running.turnId));
    expect(notTheirs).to.include({ kind: "not_found", message: "Chat turn not found" });
    expect(await isTurnCancelled(deps.redis, running.turnId)).to.equal(false);

    expect(await cancelTurn(deps, { orgId, userId: admin.id }, running.turnId)).to.deep.equal({ turn_id: running.turnId, status: "cancelling" });
    expect(await isTurnCancelled(deps.redis, running.turnId)).to.equal(true);

    const ended = await adminSession(lane, admin.id);
    await insertAssistantMessageOnce(deps.db, { orgId, sessionId: ended.sessionId, turnId: ended.turnId, content: "done", metadata: {} });
    const finished = await refusal(cancelTurn(deps, { orgId, userId: admin.id }, ended.turnId));
    expect(finished).to.include({ kind: "conflict", code: "TURN_ALREADY_FINISHED" });
    expect((finished as Refusal).details).to.deep.equal({ turn_status: "complete" });
  });
});
