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
import type { Db } from "../knex";
import {
  addOperationCounts,
  completeOperation,
  OPERATION_COLUMNS,
  type OperationCounts,
  type OperationRecord,
  parseOperation,
  requeueFailedOperation,
} from "./operations";

/** An organisation's deletion: the operation record (./operations.ts) and what it is about; its counts are what it removed. */
export interface OrgDeletionRow extends OperationRecord {
  target_org_id: string;
  slug: string;
  name: string;
  requested_by: string | null;
  requested_via: "api" | "cli";
}

const COLUMNS = [...OPERATION_COLUMNS, "target_org_id", "slug", "name", "requested_by", "requested_via"];
const parseRow = (row: Record<string, unknown> | undefined) => parseOperation<OrgDeletionRow>(row);

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
    const deletion = open
      ? await requeueFailedOperation<OrgDeletionRow>(trx, "org_deletions", open.id, COLUMNS)
      : parseRow(
          (
            await trx("org_deletions")
              .insert({ target_org_id: orgId, slug: org.slug, name: org.name, requested_by: request.requestedBy, requested_via: request.via })
              .returning(COLUMNS)
          )[0],
        )!;
    await audit(trx, deletion);
    return { deletion, queue: true };
  });
}

export async function findOrgDeletion(db: Db, deletionId: string): Promise<OrgDeletionRow | undefined> {
  return parseRow(await db("org_deletions").select(COLUMNS).where({ id: deletionId }).first());
}

/** The organisation's newest deletion record, whatever its status. */
export async function latestOrgDeletion(db: Db, orgId: string): Promise<OrgDeletionRow | undefined> {
  return parseRow(await db("org_deletions").select(COLUMNS).where({ target_org_id: orgId }).orderBy("created_at", "desc").first());
}

/** Adds counts to what the record says was removed (one statement: concurrent adds cannot lose one). */
export const addRemoved = (db: Db | Knex.Transaction, deletionId: string, counts: OperationCounts): Promise<void> =>
  addOperationCounts(db, "org_deletions", deletionId, counts);

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
        const counts: OperationCounts = {};
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
      const counts: OperationCounts = { "rows.organizations": 1 };
      for (const table of await tablesWithOrgId(trx)) {
        const [row] = await trx(table).where({ org_id: deletion.orgId }).count<{ count: string }[]>("* as count");
        if (Number(row?.count ?? 0) > 0) counts[`rows.${table}`] = Number(row?.count);
      }
      await addRemoved(trx, deletion.id, counts);
      await trx("organizations").where({ id: deletion.orgId }).delete();
    }
    await completeOperation(trx, "org_deletions", deletion.id);
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
