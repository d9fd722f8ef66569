/**
 * The queueing commands against in-memory deps (test/support/fakes.ts): what they enqueue, and
 * that a queue which refuses becomes a QUEUE_UNAVAILABLE refusal after the command's own undo.
 * Pure logic: the real queue's behaviour is covered by the stack suites (commands/*.test.ts).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { queueActionRun } from "../../../commands/queue-action-run";
import { queueIngestion } from "../../../commands/queue-ingestion";
import type { AdminActionRow } from "../../../db/queries/admin-actions";
import { Refusal } from "../../../lib/refusal";
import { fakeCommandDeps } from "../../support/fakes";

const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail("expected a refusal"),
    (error: unknown) => error,
  );

describe("queueing commands (in-memory deps)", () => {
  const document = { id: randomUUID(), org_id: randomUUID(), ingest_generation: 3 };
  const action = { id: randomUUID(), org_id: randomUUID(), user_id: randomUUID(), runs: 2 } as AdminActionRow;

  it("queue-ingestion queues the extract stage of the document's current generation", async () => {
    const deps = fakeCommandDeps();
    await queueIngestion(deps, document, "user-1");
    expect(deps.producer.jobs).to.deep.equal([
      { method: "enqueueIngestStage:ingest-extract", payload: { orgId: document.org_id, documentId: document.id, userId: "user-1", generation: 3 } },
    ]);
  });

  it("queue-ingestion with a refusing queue is refused as unavailable, naming the re-index", async () => {
    const deps = fakeCommandDeps();
    const cause = new Error("Connection is closed.");
    deps.producer.failWith = cause;
    const refused = await refusal(queueIngestion(deps, document, "user-1"));
    expect(refused).to.be.instanceOf(Refusal).and.include({ kind: "unavailable", code: "QUEUE_UNAVAILABLE" });
    expect((refused as Refusal).message).to.contain("/reindex");
    expect((refused as Refusal).cause).to.equal(cause);
  });

  it("queue-action-run queues the action's run after its announcement", async () => {
    const deps = fakeCommandDeps();
    const order: string[] = [];
    await queueActionRun(deps, action, { log: "x", message: "y", undo: async () => void order.push("undo") }, async () => void order.push("announced"));
    expect(order).to.deep.equal(["announced"]);
    expect(deps.producer.jobs).to.deep.equal([
      { method: "enqueueAdminAction", payload: { orgId: action.org_id, actionId: action.id, userId: action.user_id, run: 2 } },
    ]);
  });

  for (const failing of ["the queue", "the announcement"] as const) {
    it(`queue-action-run undoes, queues nothing and is refused as unavailable when ${failing} fails`, async () => {
      const deps = fakeCommandDeps();
      const undone: string[] = [];
      if (failing === "the queue") deps.producer.failWith = new Error("OOM command not allowed");
      const before = async () => {
        if (failing === "the announcement") throw new Error("announcement lost");
      };
      const refused = await refusal(
        queueActionRun(
          deps,
          action,
          { log: "could not queue", message: "The action could not be queued; retry.", undo: async () => void undone.push(action.id) },
          before,
        ),
      );
      expect(refused)
        .to.be.instanceOf(Refusal)
        .and.include({ kind: "unavailable", code: "QUEUE_UNAVAILABLE", message: "The action could not be queued; retry." });
      expect(undone).to.deep.equal([action.id]);
      expect(deps.producer.jobs).to.deep.equal([]);
    });
  }

  it("a fake's engine is out of reach: touching db says to use the real stack", () => {
    expect(() => fakeCommandDeps().db.raw("select 1")).to.throw(/not available in a logic test/);
  });
});
