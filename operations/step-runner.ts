/**
 * The one runner of long, resumable operations (an organisation's deletion, a person's erasure or
 * export; whatever comes next). An operation is a list of named steps, each idempotent, over a
 * record of the shared shape (db/queries/operations.ts). The runner:
 *
 * - loads the record, and does nothing for an unknown or completed one (a redelivered job);
 * - resumes at the step the record is at (a worker killed mid-step starts that step again; what
 *   earlier attempts counted is already on the record, so the totals come out the same);
 * - moves the record to each step before running it, reports the step to the job's progress and
 *   to whoever asked (`announce`), and gives the step `count` to add to the record per batch;
 * - closes the record when the last step is done (unless that step closed it in its own
 *   transaction, as deletion and erasure do);
 * - ends it at once, failed with a code and a sentence of ours, when a step throws `OperationEnded`
 *   (the person is gone: nothing to retry);
 * - and, when the job's last attempt failed, marks it failed and runs the final-failure hook, once
 *   however often that failure is reported.
 */
import type { Logger } from "pino";
import type { Db } from "../db/knex";
import {
  addOperationCounts,
  completeOperation,
  failOperation,
  markOperationStep,
  type OperationCounts,
  type OperationRecord,
  type OperationTable,
} from "../db/queries/operations";

/** What an operation tells whoever asked: it runs a step, it completed, it failed. */
export interface OperationUpdate {
  status: "running" | "completed" | "failed";
  step?: string;
}

/** Thrown by a step to end the operation as failed, with a code and a sentence of ours: nothing a retry would change. */
export class OperationEnded extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "OperationEnded";
  }
}

/** What a step is given. */
export interface StepContext<Subject> {
  id: string;
  subject: Subject;
  step: string;
  /** Reports progress within the step (the job's progress: Bull Board), with the step's name. */
  progress(detail?: object): Promise<void>;
  /** Adds counts to the record (a batch's own transaction may add them itself, with its rows). */
  count(counts: OperationCounts): Promise<void>;
}

/** One kind of operation: its record's table, its steps and what they work on. */
export interface OperationSpec<Step extends string, Subject, Row extends OperationRecord = OperationRecord> {
  /** How logs name it: "organisation deletion". */
  name: string;
  table: OperationTable;
  steps: readonly Step[];
  /** The record and what the steps work on; undefined for an unknown id (or one of another organisation). */
  load(db: Db, id: string): Promise<{ record: Row; subject: Subject } | undefined>;
  run: { [S in Step]: (context: StepContext<Subject>) => Promise<void> };
  /** Tells whoever asked (a socket event to the requester, the organisation's admins). */
  announce?(subject: Subject, record: Row, update: OperationUpdate): void | Promise<void>;
  /** Runs once when the operation has failed for good, after its record says so. */
  onFinalFailure?(subject: Subject, record: Row): void | Promise<void>;
}

export interface RunnerDeps {
  db: Db;
}

/** The job attempt running the operation: where progress goes and what it logs with. */
export interface Attempt {
  updateProgress(progress: object): Promise<void>;
  log: Logger;
}

export type RunOutcome<Row extends OperationRecord = OperationRecord> =
  | { outcome: "skipped"; reason: "unknown" | "completed" }
  | { outcome: "completed"; record: Row }
  | { outcome: "ended"; code: string; record: Row };

export class StepRunner<Step extends string, Subject, Row extends OperationRecord = OperationRecord> {
  constructor(readonly spec: OperationSpec<Step, Subject, Row>) {}

  /** One attempt at the operation `id`: from the step its record is at to the end. */
  async run(deps: RunnerDeps, attempt: Attempt, id: string): Promise<RunOutcome<Row>> {
    const { spec } = this;
    const loaded = await spec.load(deps.db, id);
    if (!loaded) return { outcome: "skipped", reason: "unknown" };
    if (loaded.record.status === "completed") return { outcome: "skipped", reason: "completed" };
    const { subject } = loaded;
    const resumeAt = Math.max(0, spec.steps.indexOf(loaded.record.step as Step));
    if (resumeAt > 0) attempt.log.info({ operation: spec.table, id, step: loaded.record.step }, `${spec.name} resumes`);
    for (const step of spec.steps.slice(resumeAt)) {
      await markOperationStep(deps.db, spec.table, id, step);
      const progress = (detail: object = {}) => attempt.updateProgress({ step, ...detail });
      await progress();
      await spec.announce?.(subject, loaded.record, { status: "running", step });
      try {
        await spec.run[step]({ id, subject, step, progress, count: (counts) => addOperationCounts(deps.db, spec.table, id, counts) });
      } catch (error) {
        if (!(error instanceof OperationEnded)) throw error;
        await failOperation(deps.db, spec.table, id, { code: error.code, message: error.message });
        const record = (await spec.load(deps.db, id))?.record ?? loaded.record;
        await spec.announce?.(subject, record, { status: "failed", step });
        return { outcome: "ended", code: error.code, record };
      }
    }
    await completeOperation(deps.db, spec.table, id);
    const record = (await spec.load(deps.db, id))?.record ?? loaded.record;
    await spec.announce?.(subject, record, { status: "completed" });
    return { outcome: "completed", record };
  }

  /**
   * The job's last attempt failed: the record says so (a code and a sentence of ours) and the
   * final-failure hook runs — once: a record already failed or completed is left alone. Asking
   * again later queues a new run that resumes at the recorded step.
   */
  async failed(deps: RunnerDeps, id: string, failure: { code: string; message: string }): Promise<boolean> {
    if (!(await failOperation(deps.db, this.spec.table, id, failure))) return false;
    const loaded = await this.spec.load(deps.db, id);
    if (!loaded) return true;
    await this.spec.announce?.(loaded.subject, loaded.record, { status: "failed", step: loaded.record.step ?? undefined });
    await this.spec.onFinalFailure?.(loaded.subject, loaded.record);
    return true;
  }
}
