/**
 * Removing an organisation's rows, and the record of that removal (`org_deletions`).
 *
 * The rows go in batches, big tables first (vectors of questions, feedback, messages, usage,
 * chunks and drafts, files), each batch one short transaction that also adds what it removed to
 * the record: a deletion never holds a huge lock, and a job that dies between two batches
 * resumes with exact totals. What is left (users, courses, settings…) goes with the final
 * `DELETE FROM organizations`, whose cascade is then small; its per-table counts are read first,
 * in the same transaction.
 */
import type { Knex } from "knex";
import { z } from "zod";
import type { Db } from "../knex";

export const DELETION_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

/** What a deletion removed so far, by kind: `rows.<table>`, `files`, `file_bytes`, `vector_indexes`, `redis_keys`, `jobs`. */
const removedCounts = z.record(z.string(), z.number()).catch({});
export type RemovedCounts = z.infer<typeof removedCounts>;

export interface OrgDeletionRow {
  id: string;
  target_org_id: string;
  slug: string;
  name: string;
  requested_by: string | null;
  requested_via: "api" | "cli";
  status: DeletionStatus;
  step: string | null;
  runs: number;
  removed: RemovedCounts;
  error: string | null;
  /** What kind of failure `error` describes (workers/stored-failure.ts, or PERSON_GONE); null unless failed. */
  error_code: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const COLUMNS = [
  "id",
  "target_org_id",
  "slug",
  "name",
  "requested_by",
  "requested_via",
  "status",
  "step",
  "runs",
  "removed",
  "error",
  "error_code",
  "created_at",
  "updated_at",
  "finished_at",
];

function parseRow(row: Record<string, unknown> | undefined): OrgDeletionRow | undefined {
  if (!row) return undefined;
  return { ...(row as unknown as OrgDeletionRow), removed: removedCounts.parse(row.removed ?? {}) };
}

/**
 * Marks the organisation as being deleted and opens its deletion record, in one transaction
 * (with the caller's audit row). Asking again while one is open answers that one; a failed one
 * is queued again (`requeued`, with its run count moved on) so the caller can start a new job.
 */
export async function openOrgDeletion(
  db: Db,
  orgId: string,
  request: { requestedBy: string | null; via: "api" | "cli" },
  audit: (trx: Knex.Transaction, deletion: OrgDeletionRow) => Promise<void>,
): Promise<{ deletion: OrgDeletionRow; queue: boolean } | undefined> {
  return db.transaction(async (trx) => {
    const org = await trx("organizations").select("id", "slug", "name").where({ id: orgId }).forUpdate().first();
    if (!org) return undefined;
    await trx("organizations").where({ id: orgId }).whereNull("deleting_since").update({ deleting_since: trx.fn.now() });
    const open = parseRow(
      await trx("org_deletions").select(COLUMNS).where({ target_org_id: orgId }).whereIn("status", ["queued", "running", "failed"]).first(),
    );
    if (open && open.status !== "failed") return { deletion: open, queue: false };
    const [row] = open
      ? await trx("org_deletions")
          .where({ id: open.id })
          .update({ status: "queued", error: null, error_code: null, runs: trx.raw("runs + 1"), updated_at: trx.fn.now() })
          .returning(COLUMNS)
      : await trx("org_deletions")
          .insert({ target_org_id: orgId, slug: org.slug, name: org.name, requested_by: request.requestedBy, requested_via: request.via })
          .returning(COLUMNS);
    const deletion = parseRow(row)!;
    await audit(trx, deletion);
    return { deletion, queue: true };
  });
}

/** Undoes `openOrgDeletion` when the job could not be queued: the record fails with the reason (the organisation stays locked out). */
/** Marks it failed with a code and a sentence of ours (never an error's own text: it may hold SQL and values). */
export async function failOrgDeletion(db: Db, deletionId: string, failure: { code: string; message: string }): Promise<void> {
  await db("org_deletions")
    .where({ id: deletionId })
    .whereNot({ status: "completed" })
    .update({ status: "failed", error: failure.message, error_code: failure.code, updated_at: db.fn.now() });
}

export async function findOrgDeletion(db: Db, deletionId: string): Promise<OrgDeletionRow | undefined> {
  return parseRow(await db("org_deletions").select(COLUMNS).where({ id: deletionId }).first());
}

/** The organisation's newest deletion record, whatever its status. */
export async function latestOrgDeletion(db: Db, orgId: string): Promise<OrgDeletionRow | undefined> {
  return parseRow(await db("org_deletions").select(COLUMNS).where({ target_org_id: orgId }).orderBy("created_at", "desc").first());
}

/** Moves the record to a step (a finished deletion is never moved back). */
export async function markDeletionStep(db: Db, deletionId: string, step: string): Promise<void> {
  await db("org_deletions").where({ id: deletionId }).whereNot({ status: "completed" }).update({ status: "running", step, updated_at: db.fn.now() });
}

/** Adds counts to what the record says was removed (one statement: concurrent adds cannot lose one). */
export const addRemoved = (db: Db | Knex.Transaction, deletionId: string, counts: RemovedCounts): Promise<void> =>
  addCounts(db, "org_deletions", deletionId, counts);

/** Adds counts to the `removed` column of a deletion's or an erasure's record, in one statement. */
export async function addCounts(db: Db | Knex.Transaction, table: "org_deletions" | "person_erasures", id: string, counts: RemovedCounts): Promise<void> {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  if (entries.length === 0) return;
  // jsonb_object_agg over the union of both key sets, each value the sum.
  await db.raw(
    `UPDATE ?? SET updated_at = now(), removed = (
       SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
         SELECT key, sum(value)::bigint AS total FROM (
           SELECT key, value::bigint AS value FROM jsonb_each_text(removed)
           UNION ALL SELECT key, value::bigint FROM jsonb_each_text(?::jsonb)
         ) parts GROUP BY key
       ) sums)
     WHERE id = ?`,
    [table, JSON.stringify(Object.fromEntries(entries)), id],
  );
}

/** Tables removed batch by batch before the rest cascades, children before parents, biggest first. */
const BATCHED_TABLES = [
  "question_vectors",
  "chat_feedback",
  "chat_messages",
  "llm_usage_log",
  "document_chunks",
  "document_chunk_drafts",
  "document_files",
  "audit_log",
  "chat_sessions",
  "admin_action_items",
  "exercise_attempts",
  "spaced_repetition",
  "enrollments",
  "user_skills",
  "identity_links",
  "refresh_tokens",
] as const;

/**
 * Removes the organisation's rows of the batched tables, `batchRows` at a time; each batch and
 * its count are one transaction. Stored files are counted as `files` and `file_bytes` too.
 * `onBatch` hears the running totals (the job's progress).
 */
export async function deleteOrgRowsInBatches(
  db: Db,
  deletion: { id: string; orgId: string },
  batchRows: number,
  onBatch: (table: string, removed: number) => Promise<void>,
): Promise<void> {
  for (const table of BATCHED_TABLES) {
    for (;;) {
      const removed = await db.transaction(async (trx) => {
        const victims = "ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE org_id = ? LIMIT ?))";
        const bindings = [table, table, deletion.orgId, batchRows];
        const counts: RemovedCounts = {};
        if (table === "document_files") {
          const { rows }: { rows: Array<{ size: string }> } = await trx.raw(`DELETE FROM ?? WHERE ${victims} RETURNING octet_length(bytes) AS size`, bindings);
          counts.files = rows.length;
          counts.file_bytes = rows.reduce((sum, file) => sum + Number(file.size), 0);
          counts[`rows.${table}`] = rows.length;
        } else {
          const { rowCount }: { rowCount: number } = await trx.raw(`DELETE FROM ?? WHERE ${victims}`, bindings);
          counts[`rows.${table}`] = rowCount;
        }
        await addRemoved(trx, deletion.id, counts);
        return counts[`rows.${table}`] ?? 0;
      });
      if (removed === 0) break;
      await onBatch(table, removed);
    }
  }
}

/** Every table with an `org_id` column (the final count reads them all; so do the tests). */
export async function tablesWithOrgId(db: Db | Knex.Transaction): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT table_name FROM information_schema.columns WHERE column_name = 'org_id' AND table_schema = current_schema() ORDER BY table_name`,
  );
  return (rows as Array<{ table_name: string }>).map((row) => row.table_name);
}

/**
 * The last step: counts what is left of the organisation per table, deletes its row (the
 * cascade takes the rest) and closes the record, in one transaction. Returns false when the
 * organisation was already gone (a resumed job whose previous attempt got this far).
 */
export async function removeOrganisationRow(db: Db, deletion: { id: string; orgId: string }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const org = await trx("organizations").where({ id: deletion.orgId }).forUpdate().first("id");
    if (org) {
      const counts: RemovedCounts = { "rows.organizations": 1 };
      for (const table of await tablesWithOrgId(trx)) {
        const [row] = await trx(table).where({ org_id: deletion.orgId }).count<{ count: string }[]>("* as count");
        if (Number(row?.count ?? 0) > 0) counts[`rows.${table}`] = Number(row?.count);
      }
      await addRemoved(trx, deletion.id, counts);
      await trx("organizations").where({ id: deletion.orgId }).delete();
    }
    await trx("org_deletions")
      .where({ id: deletion.id })
      .update({ status: "completed", step: "done", error: null, error_code: null, finished_at: trx.fn.now(), updated_at: trx.fn.now() });
    return Boolean(org);
  });
}

/** The ids whose Redis keys and jobs belong to the organisation: read before its rows go. */
export interface OrgOwnedIds {
  orgId: string;
  userIds: string[];
  sessionIds: string[];
  turnIds: string[];
  actionIds: string[];
  documentIds: string[];
}

export async function orgOwnedIds(db: Db, orgId: string): Promise<OrgOwnedIds> {
  const column = async (query: Knex.QueryBuilder, name: string): Promise<string[]> => (await query).map((row: Record<string, string>) => String(row[name]));
  const [userIds, sessionIds, turnIds, actionIds, documentIds] = await Promise.all([
    column(db("users").select("id").where({ org_id: orgId }), "id"),
    column(db("chat_sessions").select("id").where({ org_id: orgId }), "id"),
    column(db("chat_messages").distinct("turn_id").where({ org_id: orgId }), "turn_id"),
    column(db("admin_actions").select("id").where({ org_id: orgId }), "id"),
    column(db("documents").select("id").where({ org_id: orgId }), "id"),
  ]);
  return { orgId, userIds, sessionIds, turnIds, actionIds, documentIds };
}
