/**
 * The step runner (operations/step-runner.ts) against the real database, over records of the
 * shared shape (an `org_deletions` row standing for an operation of three made-up steps): a crash
 * mid-batch resumes at the recorded step with exact totals and without redoing the steps before;
 * progress and announcements follow the steps; a step that ends the operation fails it at once; the
 * final-failure hook runs once however often the failure is reported; a completed record is left
 * alone on redelivery.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import type { Db } from "../../../db/knex";
import { findOrgDeletion } from "../../../db/queries/org-deletion";
import type { OperationRecord } from "../../../db/queries/operations";
import { OperationEnded, type OperationSpec, type OperationUpdate, StepRunner } from "../../../operations/step-runner";
import { databaseSuite } from "../../support/database";

const STEPS = ["prepare", "batches", "close"] as const;
type Step = (typeof STEPS)[number];

/** A made-up operation: `batches` removes items three at a time (each batch counted), crashing once after `crashAfter` batches when asked to. */
function world(options: { items: number; crashAfter?: number; endIn?: Step }) {
  const left = Array.from({ length: options.items }, (_, i) => i);
  const calls: Step[] = [];
  const progress: object[] = [];
  const announced: OperationUpdate[] = [];
  const finalFailures: string[] = [];
  let crashAfter = options.crashAfter;
  const spec = (db: Db): OperationSpec<Step, { label: string }> => ({
    name: "test operation",
    table: "org_deletions",
    steps: STEPS,
    async load(loadDb, id) {
      const record = await findOrgDeletion(loadDb, id);
      return record && { record, subject: { label: record.slug } };
    },
    run: {
      async prepare({ count }) {
        calls.push("prepare");
        await count({ prepared: 1 });
      },
      async batches({ count, progress: report }) {
        calls.push("batches");
        for (let batch = 1; left.length > 0; batch++) {
          const taken = left.splice(0, 3);
          await count({ items: taken.length });
          await report({ batch: taken.length });
          if (crashAfter !== undefined && batch >= crashAfter) {
            crashAfter = undefined;
            throw new Error("the worker died mid-step");
          }
        }
        if (options.endIn === "batches") throw new OperationEnded("NOTHING_LEFT", "there was nothing left to do");
      },
      async close() {
        calls.push("close");
        void db;
      },
    },
    announce: (_subject, _record: OperationRecord, update) => void announced.push(update),
    onFinalFailure: (subject) => void finalFailures.push(subject.label),
  });
  return {
    spec,
    calls,
    progress,
    announced,
    finalFailures,
    attempt: { updateProgress: async (p: object) => void progress.push(p), log: pino({ level: "silent" }) },
  };
}

describe("operations: the step runner", function () {
  const lane = databaseSuite(this);
  const db = () => lane.db;
  const made: string[] = [];
  after(async () => {
    await db()("org_deletions").whereIn("id", made).delete();
  });

  async function record(slug = `op-${randomUUID().slice(0, 8)}`): Promise<string> {
    const [row] = await db()("org_deletions").insert({ target_org_id: randomUUID(), slug, name: slug, requested_via: "cli" }).returning("id");
    made.push(row.id);
    return row.id;
  }

  it("resumes a crash mid-batch at the recorded step, without redoing earlier steps, with exact totals", async () => {
    const id = await record();
    const run = world({ items: 10, crashAfter: 2 });
    const runner = new StepRunner(run.spec(db()));
    const crashed = await runner.run({ db: db() }, run.attempt, id).catch((error: Error) => error);
    expect((crashed as Error).message).to.equal("the worker died mid-step");
    const atCrash = (await findOrgDeletion(db(), id))!;
    expect(atCrash).to.include({ status: "running", step: "batches", runs: 1 });
    expect(atCrash.counts).to.deep.equal({ prepared: 1, items: 6 });
    expect(atCrash.started_at).to.be.instanceOf(Date);

    const resumed = await runner.run({ db: db() }, run.attempt, id);
    expect(resumed.outcome).to.equal("completed");
    expect(run.calls).to.deep.equal(["prepare", "batches", "batches", "close"]);
    const done = (await findOrgDeletion(db(), id))!;
    expect(done).to.include({ status: "completed", step: "done", error: null, error_code: null });
    expect(done.counts, "each item counted once, prepare once").to.deep.equal({ prepared: 1, items: 10 });
    expect(done.finished_at).to.be.instanceOf(Date);
  });

  it("reports each step and each batch to the job's progress and announces steps, then completion, to whoever asked", async () => {
    const id = await record();
    const run = world({ items: 7 });
    await new StepRunner(run.spec(db())).run({ db: db() }, run.attempt, id);
    expect(run.progress).to.deep.equal([
      { step: "prepare" },
      { step: "batches" },
      { step: "batches", batch: 3 },
      { step: "batches", batch: 3 },
      { step: "batches", batch: 1 },
      { step: "close" },
    ]);
    expect(run.announced).to.deep.equal([
      { status: "running", step: "prepare" },
      { status: "running", step: "batches" },
      { status: "running", step: "close" },
      { status: "completed" },
    ]);
  });

  it("leaves a completed record alone when its job is delivered again", async () => {
    const id = await record();
    const run = world({ items: 3 });
    const runner = new StepRunner(run.spec(db()));
    await runner.run({ db: db() }, run.attempt, id);
    const before = await findOrgDeletion(db(), id);
    expect(await runner.run({ db: db() }, run.attempt, id)).to.deep.equal({ outcome: "skipped", reason: "completed" });
    expect(await runner.run({ db: db() }, run.attempt, randomUUID())).to.deep.equal({ outcome: "skipped", reason: "unknown" });
    expect(run.calls).to.deep.equal(["prepare", "batches", "close"]);
    expect(await findOrgDeletion(db(), id)).to.deep.equal(before);
    expect(await runner.failed({ db: db() }, id, { code: "X", message: "late failure report" }), "a completed record never fails").to.equal(false);
    expect(run.finalFailures).to.deep.equal([]);
  });

  it("ends the operation at once, failed with the step's code, when a step says there is nothing to retry", async () => {
    const id = await record();
    const run = world({ items: 2, endIn: "batches" });
    const ended = await new StepRunner(run.spec(db())).run({ db: db() }, run.attempt, id);
    expect(ended).to.deep.include({ outcome: "ended", code: "NOTHING_LEFT" });
    expect(await findOrgDeletion(db(), id)).to.include({
      status: "failed",
      step: "batches",
      error_code: "NOTHING_LEFT",
      error: "there was nothing left to do",
    });
    expect(run.calls).to.deep.equal(["prepare", "batches"]);
    expect(run.announced.at(-1)).to.deep.equal({ status: "failed", step: "batches" });
  });

  it("runs the final-failure hook once however often the failure is reported, and tells whoever asked once", async () => {
    const slug = `op-failing-${randomUUID().slice(0, 8)}`;
    const id = await record(slug);
    const run = world({ items: 10, crashAfter: 1 });
    const runner = new StepRunner(run.spec(db()));
    await runner.run({ db: db() }, run.attempt, id).catch(() => undefined);
    const failure = { code: "DATABASE_ERROR", message: "a database error stopped it; the operator's log has the details" };
    expect(await runner.failed({ db: db() }, id, failure)).to.equal(true);
    expect(await runner.failed({ db: db() }, id, failure), "the same failure reported again (a stalled job's last report)").to.equal(false);
    expect(run.finalFailures).to.deep.equal([slug]);
    expect(run.announced.filter((update) => update.status === "failed")).to.deep.equal([{ status: "failed", step: "batches" }]);
    const failed = (await findOrgDeletion(db(), id))!;
    expect(failed).to.include({ status: "failed", step: "batches", error_code: "DATABASE_ERROR" });
    expect(failed.counts).to.deep.equal({ prepared: 1, items: 3 });
  });
});
