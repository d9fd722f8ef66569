/**
 * The record every long operation keeps (migration 20261205020000_operation_records): its status,
 * the step it is at, how many runs it took, what it counted so far, why it failed, and when it
 * started and finished. An organisation's deletion, a person's erasure and a person's export each
 * have their own table (their own columns beside these, their own tenant scoping and foreign
 * keys), and all of them read and write these columns here, the same way; operations/ runs them.
 */
import type { Knex } from "knex";
import { z } from "zod";
import type { Db } from "../knex";

export const OPERATION_TABLES = ["org_deletions", "person_erasures", "person_exports", "catalog_imports"] as const;
export type OperationTable = (typeof OPERATION_TABLES)[number];

export const OPERATION_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** The step a completed operation is at. */
export const DONE_STEP = "done";

/** What an operation counted so far, by kind (`rows.<table>`, `redis_keys`, `sessions`…). */
const operationCounts = z.record(z.string(), z.number()).catch({});
export type OperationCounts = z.infer<typeof operationCounts>;

export interface OperationRecord {
  id: string;
  status: OperationStatus;
  step: string | null;
  runs: number;
  counts: OperationCounts;
  /** What kind of failure `error` describes (workers/stored-failure.ts, or PERSON_GONE); null unless failed. */
  error_code: string | null;
  /** A sentence of ours, never an error's own text (it may hold SQL and values). */
  error: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const OPERATION_COLUMNS = ["id", "status", "step", "runs", "counts", "error_code", "error", "created_at", "updated_at", "started_at", "finished_at"];

/** A row read with OPERATION_COLUMNS (and the table's own), its counts parsed. */
export function parseOperation<Row extends OperationRecord>(row: Record<string, unknown> | undefined): Row | undefined {
  if (!row) return undefined;
  return { ...(row as unknown as Row), counts: operationCounts.parse(row.counts ?? {}) };
}

/** Moves the record to a step, running (a finished operation is never moved back). */
export async function markOperationStep(db: Db, table: OperationTable, id: string, step: string): Promise<void> {
  await db(table)
    .where({ id })
    .whereNot({ status: "completed" })
    .update({ status: "running", step, error: null, error_code: null, started_at: db.raw("coalesce(started_at, now())"), updated_at: db.fn.now() });
}

/** Adds counts to the record's (one statement: concurrent adds cannot lose one; zeroes are skipped). */
export async function addOperationCounts(db: Db | Knex.Transaction, table: OperationTable, id: string, counts: OperationCounts): Promise<void> {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  if (entries.length === 0) return;
  // jsonb_object_agg over the union of both key sets, each value the sum.
  await db.raw(
    `UPDATE ?? SET updated_at = now(), counts = (
       SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
         SELECT key, sum(value)::bigint AS total FROM (
           SELECT key, value::bigint AS value FROM jsonb_each_text(counts)
           UNION ALL SELECT key, value::bigint FROM jsonb_each_text(?::jsonb)
         ) parts GROUP BY key
       ) sums)
     WHERE id = ?`,
    [table, JSON.stringify(Object.fromEntries(entries)), id],
  );
}

/** Closes the record as completed (in the caller's transaction when the last step's writes go with it); a second close changes nothing. */
export async function completeOperation(db: Db | Knex.Transaction, table: OperationTable, id: string, extra: Record<string, unknown> = {}): Promise<boolean> {
  const changed = await db(table)
    .where({ id })
    .whereNot({ status: "completed" })
    .update({ ...extra, status: "completed", step: DONE_STEP, error: null, error_code: null, finished_at: db.fn.now(), updated_at: db.fn.now() });
  return changed > 0;
}

/**
 * Marks the record failed with a code and a sentence of ours. Returns whether it did: an
 * operation already completed or failed is left as it is, so the final-failure hook that calls
 * this acts once however often the failure is reported.
 */
export async function failOperation(
  db: Db | Knex.Transaction,
  table: OperationTable,
  id: string,
  failure: { code: string; message: string },
): Promise<boolean> {
  const changed = await db(table)
    .where({ id })
    .whereNotIn("status", ["completed", "failed"])
    .update({ status: "failed", error: failure.message, error_code: failure.code, finished_at: db.fn.now(), updated_at: db.fn.now() });
  return changed > 0;
}

/** Queues a failed operation again, its run count moved on (asking again after a failure); returns the record. */
export async function requeueFailedOperation<Row extends OperationRecord>(
  trx: Knex.Transaction,
  table: OperationTable,
  id: string,
  columns: readonly string[],
): Promise<Row> {
  const [row] = await trx(table)
    .where({ id, status: "failed" })
    .update({ status: "queued", error: null, error_code: null, finished_at: null, runs: trx.raw("runs + 1"), updated_at: trx.fn.now() })
    .returning([...columns]);
  return parseOperation<Row>(row)!;
}
