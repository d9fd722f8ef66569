/**
 * Erasing one person (GDPR article 17), and the record of it (`person_erasures`).
 *
 * What goes, in batches of short transactions that each add their counts to the record (so a
 * job killed between two batches resumes with exact totals, and a batch never holds big locks):
 *
 * 1. their chats: question vectors of their questions, ratings, messages, sessions;
 * 2. every other row that belongs to them by a foreign key to `users` with ON DELETE CASCADE
 *    (identity links, SCIM group memberships, refresh tokens, exports, admin actions they proposed,
 *    and whatever later tables add the same way) — except the learning records the organisation
 *    keeps (enrolments, skill levels, attempts, review schedules) unless it asked for them too;
 * 3. every reference with ON DELETE SET NULL is set to null: usage rows stay for billing but no
 *    longer point at them (nor, through `call_key`, at their turns and sessions), as do audit rows
 *    they made, documents they uploaded;
 * 4. audit rows and admin action items that name them (their id or email in the details) are
 *    scrubbed: what they said is replaced, the row (that something happened) stays;
 * 5. last, their row is anonymised (`erased-<erasure id>@invalid`, "Erased person", inactive,
 *    hidden from SCIM, `erased_at`), and one `person.erased` audit row says that it happened and
 *    by whom, not what; all in one transaction that also closes the record.
 *
 * The row is kept, not deleted, so the learning records and usage totals the company keeps still
 * add up and every foreign key stays valid; nothing left on it says who the person was.
 */
import type { Knex } from "knex";
import { z } from "zod";
import type { Db } from "../knex";
import { addCounts } from "./org-deletion";

export type ErasureStatus = "queued" | "running" | "completed" | "failed";

const removedCounts = z.record(z.string(), z.number()).catch({});

export interface PersonErasureRow {
  id: string;
  org_id: string;
  user_id: string;
  requested_by: string | null;
  keep_learning_records: boolean;
  status: ErasureStatus;
  step: string | null;
  runs: number;
  removed: Record<string, number>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const COLUMNS = [
  "id",
  "org_id",
  "user_id",
  "requested_by",
  "keep_learning_records",
  "status",
  "step",
  "runs",
  "removed",
  "error",
  "created_at",
  "updated_at",
  "finished_at",
];

function parseRow(row: Record<string, unknown> | undefined): PersonErasureRow | undefined {
  if (!row) return undefined;
  return { ...(row as unknown as PersonErasureRow), removed: removedCounts.parse(row.removed ?? {}) };
}

/** The learning records an organisation keeps on the anonymised row unless it asks for them to go too. */
const LEARNING_TABLES = new Set(["enrollments", "user_skills", "exercise_attempts", "spaced_repetition"]);

/** What the person is, as an erasure request checks it against the confirmation. */
export interface ErasureTarget {
  id: string;
  email: string;
  role: "admin" | "employee";
  erased_at: Date | null;
}

export async function findErasureTarget(db: Db, orgId: string, userId: string): Promise<ErasureTarget | undefined> {
  return db("users").select("id", "email", "role", "erased_at").where({ id: userId, org_id: orgId }).first();
}

/** Whether the person was erased (their row is only an anonymised placeholder). */
export async function isErased(db: Db | Knex.Transaction, orgId: string, userId: string): Promise<boolean> {
  return Boolean(await db("users").where({ id: userId, org_id: orgId }).whereNotNull("erased_at").first("id"));
}

/**
 * Opens the person's erasure and locks them out at once, in one transaction: the account is
 * deactivated (every request re-reads it: their tokens stop working) and their refresh tokens are
 * revoked. Asking again while one is open answers it (`queue: false`); a failed one is queued
 * again with its run count moved on.
 */
export async function openPersonErasure(
  db: Db,
  request: { orgId: string; userId: string; requestedBy: string; keepLearningRecords: boolean },
): Promise<{ erasure: PersonErasureRow; queue: boolean } | undefined> {
  return db.transaction(async (trx) => {
    const person = await trx("users").where({ id: request.userId, org_id: request.orgId }).whereNull("erased_at").forUpdate().first("id");
    if (!person) return undefined;
    await trx("users")
      .where({ id: request.userId })
      .update({ is_active: false, deactivated_at: trx.raw("coalesce(deactivated_at, now())") });
    await trx("refresh_tokens").where({ org_id: request.orgId, user_id: request.userId }).whereNull("revoked_at").update({ revoked_at: trx.fn.now() });
    const open = parseRow(
      await trx("person_erasures")
        .select(COLUMNS)
        .where({ org_id: request.orgId, user_id: request.userId })
        .whereIn("status", ["queued", "running", "failed"])
        .first(),
    );
    if (open && open.status !== "failed") return { erasure: open, queue: false };
    const [row] = open
      ? await trx("person_erasures")
          .where({ id: open.id })
          .update({ status: "queued", error: null, runs: trx.raw("runs + 1"), updated_at: trx.fn.now() })
          .returning(COLUMNS)
      : await trx("person_erasures")
          .insert({ org_id: request.orgId, user_id: request.userId, requested_by: request.requestedBy, keep_learning_records: request.keepLearningRecords })
          .returning(COLUMNS);
    return { erasure: parseRow(row)!, queue: true };
  });
}

export async function latestPersonErasure(db: Db, orgId: string, userId: string): Promise<PersonErasureRow | undefined> {
  return parseRow(await db("person_erasures").select(COLUMNS).where({ org_id: orgId, user_id: userId }).orderBy("created_at", "desc").first());
}

export async function findPersonErasure(db: Db, orgId: string, erasureId: string): Promise<PersonErasureRow | undefined> {
  return parseRow(await db("person_erasures").select(COLUMNS).where({ id: erasureId, org_id: orgId }).first());
}

/** Moves the record to a step (a finished erasure is never moved back). */
export async function markErasureStep(db: Db, erasureId: string, step: string): Promise<void> {
  await db("person_erasures").where({ id: erasureId }).whereNot({ status: "completed" }).update({ status: "running", step, updated_at: db.fn.now() });
}

export async function failPersonErasure(db: Db, erasureId: string, error: string): Promise<void> {
  await db("person_erasures").where({ id: erasureId }).whereNot({ status: "completed" }).update({ status: "failed", error, updated_at: db.fn.now() });
}

export const addErased = (db: Db | Knex.Transaction, erasureId: string, counts: Record<string, number>): Promise<void> =>
  addCounts(db, "person_erasures", erasureId, counts);

/** The ids whose Redis keys and jobs are the person's: read before their rows go. */
export async function personOwnedIds(db: Db, orgId: string, userId: string) {
  const column = async (query: Knex.QueryBuilder, name: string): Promise<string[]> => (await query).map((row: Record<string, string>) => String(row[name]));
  const sessions = db("chat_sessions").select("id").where({ org_id: orgId, user_id: userId });
  const [sessionIds, turnIds, actionIds, exportIds] = await Promise.all([
    column(sessions.clone(), "id"),
    column(db("chat_messages").distinct("turn_id").where({ org_id: orgId }).whereIn("session_id", sessions.clone()), "turn_id"),
    column(db("admin_actions").select("id").where({ org_id: orgId, user_id: userId }), "id"),
    column(db("person_exports").select("id").where({ org_id: orgId, user_id: userId }), "id"),
  ]);
  return { orgId, userId, sessionIds, turnIds, actionIds, exportIds };
}

interface Reference {
  table: string;
  column: string;
  onDelete: "cascade" | "set null" | "other";
}

/** Every single-column foreign key to `users.id`, from the catalogue: a table added later is covered without a change here. */
async function referencesToUsers(db: Db): Promise<Reference[]> {
  const { rows } = await db.raw(
    `SELECT c.conrelid::regclass::text AS table_name, a.attname AS column_name, c.confdeltype AS on_delete
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass AND cardinality(c.conkey) = 1
      ORDER BY 1, 2`,
  );
  return (rows as Array<{ table_name: string; column_name: string; on_delete: string }>).map((row) => ({
    table: row.table_name,
    column: row.column_name,
    onDelete: row.on_delete === "c" ? "cascade" : row.on_delete === "n" ? "set null" : "other",
  }));
}

interface Erasure {
  id: string;
  orgId: string;
  userId: string;
  keepLearningRecords: boolean;
}

/** One batched statement, repeated until it touches nothing; each batch adds its count under `kind`. */
async function inBatches(db: Db, erasure: Erasure, kind: string, statement: (trx: Knex.Transaction) => Promise<number>, onBatch: OnBatch): Promise<void> {
  for (;;) {
    const touched = await db.transaction(async (trx) => {
      const count = await statement(trx);
      await addErased(trx, erasure.id, { [kind]: count });
      return count;
    });
    if (touched === 0) return;
    await onBatch(kind, touched);
  }
}

type OnBatch = (kind: string, count: number) => Promise<void>;

const rowCount = (result: { rowCount: number | null }): number => result.rowCount ?? 0;

/**
 * Steps 1–4 above, `batchRows` at a time. Every statement selects what is still there, so a
 * repeated run finds nothing more to do and adds nothing to the counts.
 */
export async function erasePersonRowsInBatches(db: Db, erasure: Erasure, batchRows: number, onBatch: OnBatch): Promise<void> {
  const { orgId, userId } = erasure;
  const theirSessions = "SELECT id FROM chat_sessions WHERE org_id = ? AND user_id = ?";
  // First, while their messages still name their turns: a usage row's call_key starts with the job that made the call (workers/llm/call-keys.ts).
  const owned = await personOwnedIds(db, orgId, userId);
  const theirs = [...owned.turnIds, ...owned.sessionIds];
  await inBatches(
    db,
    erasure,
    "unlinked.llm_usage_log.call_key",
    async (trx) =>
      rowCount(
        await trx.raw(
          `UPDATE llm_usage_log SET call_key = 'erased:' || id::text WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM llm_usage_log WHERE org_id = ? AND call_key IS NOT NULL AND call_key NOT LIKE 'erased:%'
                AND (user_id = ? OR substring(call_key from '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}') = ANY(?::text[])) LIMIT ?))`,
          [orgId, userId, theirs, batchRows],
        ),
      ),
    onBatch,
  );
  await inBatches(
    db,
    erasure,
    "rows.question_vectors",
    async (trx) =>
      rowCount(
        await trx.raw(
          `DELETE FROM question_vectors WHERE ctid = ANY(ARRAY(
             SELECT qv.ctid FROM question_vectors qv JOIN chat_messages m ON m.id = qv.message_id
              WHERE qv.org_id = ? AND m.session_id IN (${theirSessions}) LIMIT ?))`,
          [orgId, orgId, userId, batchRows],
        ),
      ),
    onBatch,
  );
  await inBatches(
    db,
    erasure,
    "rows.chat_feedback",
    async (trx) =>
      rowCount(
        await trx.raw("DELETE FROM chat_feedback WHERE ctid = ANY(ARRAY(SELECT ctid FROM chat_feedback WHERE org_id = ? AND user_id = ? LIMIT ?))", [
          orgId,
          userId,
          batchRows,
        ]),
      ),
    onBatch,
  );
  await inBatches(
    db,
    erasure,
    "rows.chat_messages",
    async (trx) =>
      rowCount(
        await trx.raw(
          `DELETE FROM chat_messages WHERE ctid = ANY(ARRAY(SELECT ctid FROM chat_messages WHERE org_id = ? AND session_id IN (${theirSessions}) LIMIT ?))`,
          [orgId, orgId, userId, batchRows],
        ),
      ),
    onBatch,
  );
  await inBatches(
    db,
    erasure,
    "rows.admin_action_items",
    async (trx) =>
      rowCount(
        await trx.raw(
          `DELETE FROM admin_action_items WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM admin_action_items WHERE org_id = ? AND action_id IN (SELECT id FROM admin_actions WHERE org_id = ? AND user_id = ?) LIMIT ?))`,
          [orgId, orgId, userId, batchRows],
        ),
      ),
    onBatch,
  );
  const references = await referencesToUsers(db);
  for (const { table, column } of references.filter((reference) => reference.onDelete === "cascade")) {
    if (table === "person_erasures" || (erasure.keepLearningRecords && LEARNING_TABLES.has(table))) continue;
    await inBatches(
      db,
      erasure,
      `rows.${table}`,
      async (trx) =>
        rowCount(
          await trx.raw("DELETE FROM ?? WHERE ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE org_id = ? AND ?? = ? LIMIT ?))", [
            table,
            table,
            orgId,
            column,
            userId,
            batchRows,
          ]),
        ),
      onBatch,
    );
  }
  for (const { table, column } of references.filter((reference) => reference.onDelete === "set null")) {
    await inBatches(
      db,
      erasure,
      `unlinked.${table}.${column}`,
      async (trx) =>
        rowCount(
          await trx.raw("UPDATE ?? SET ?? = NULL WHERE ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE ?? = ? LIMIT ?))", [
            table,
            column,
            table,
            column,
            userId,
            batchRows,
          ]),
        ),
      onBatch,
    );
  }
  await scrubMentions(db, erasure, batchRows, onBatch);
}

/**
 * Audit rows and admin action items (another admin's change to this person) that carry the
 * person's id, email or one of their enrolments' ids keep that something happened, not what was
 * said about whom; so does an admin action with such an item (its preview lists names). The email
 * is read from their row, which is anonymised only after this step, so a resumed run still has it.
 */
async function scrubMentions(db: Db, erasure: Erasure, batchRows: number, onBatch: OnBatch): Promise<void> {
  const person = await db("users").select("email").where({ id: erasure.userId, org_id: erasure.orgId }).first();
  const enrolments = await db("enrollments").where({ org_id: erasure.orgId, user_id: erasure.userId }).pluck("id");
  const needles = [erasure.userId, ...(person ? [person.email] : []), ...enrolments].map((needle: string) => String(needle).toLowerCase());
  /** `column::text` contains one of the needles, for each column: plain substring tests (no LIKE wildcards in an email's `_`). */
  const mentions = (columns: string[]): { sql: string; bindings: string[] } => {
    const clauses = needles.flatMap((needle) => columns.map((column) => ({ sql: `position(?::text in lower(coalesce(${column}::text, ''))) > 0`, needle })));
    return { sql: clauses.map((clause) => clause.sql).join(" OR "), bindings: clauses.map((clause) => clause.needle) };
  };
  const audit = mentions(["target_id", "details", "before", "after"]);
  await inBatches(
    db,
    erasure,
    "scrubbed.audit_log",
    async (trx) =>
      rowCount(
        await trx.raw(
          `UPDATE audit_log SET details = '{"scrubbed": "the person this named was erased"}'::jsonb, before = NULL, after = NULL, target_id = NULL
            WHERE ctid = ANY(ARRAY(SELECT ctid FROM audit_log WHERE org_id = ? AND (${audit.sql}) LIMIT ?))`,
          [erasure.orgId, ...audit.bindings, batchRows],
        ),
      ),
    onBatch,
  );
  const items = mentions(["target", "label", "before", "after", "error"]);
  await inBatches(
    db,
    erasure,
    "scrubbed.admin_action_items",
    async (trx) =>
      rowCount(
        await trx.raw(
          `UPDATE admin_action_items SET target = '{"erased": true}'::jsonb, label = 'an erased person', before = NULL, after = NULL, error = NULL
            WHERE ctid = ANY(ARRAY(SELECT ctid FROM admin_action_items WHERE org_id = ? AND (${items.sql}) LIMIT ?))`,
          [erasure.orgId, ...items.bindings, batchRows],
        ),
      ),
    onBatch,
  );
  const actions = mentions(["args", "preview", "summary", "estimate"]);
  await inBatches(
    db,
    erasure,
    "scrubbed.admin_actions",
    async (trx) =>
      rowCount(
        await trx.raw(
          `UPDATE admin_actions SET args = '{"scrubbed": true}'::jsonb, preview = 'It named a person who was erased since.', summary = NULL, estimate = NULL
            WHERE ctid = ANY(ARRAY(SELECT ctid FROM admin_actions WHERE org_id = ? AND args <> '{"scrubbed": true}'::jsonb AND (
              ${actions.sql} OR id IN (SELECT action_id FROM admin_action_items WHERE org_id = ? AND target = '{"erased": true}'::jsonb)) LIMIT ?))`,
          [erasure.orgId, ...actions.bindings, erasure.orgId, batchRows],
        ),
      ),
    onBatch,
  );
}

/** The anonymised person's name, as lists and reports show the row from now on. */
export const ERASED_NAME = "Erased person";

/**
 * Step 5: anonymises the row, writes the one `person.erased` audit row (actor: the admin who asked;
 * target: this erasure's record) and closes the record, in one transaction. A resumed job that got
 * this far before finds the record completed and does nothing.
 */
export async function completePersonErasure(db: Db, erasure: Erasure): Promise<void> {
  await db.transaction(async (trx) => {
    const record = await trx("person_erasures").select("status", "requested_by").where({ id: erasure.id }).forUpdate().first();
    if (!record || record.status === "completed") return;
    await trx("users")
      .where({ id: erasure.userId, org_id: erasure.orgId })
      .update({
        email: `erased-${erasure.id}@invalid`,
        name: ERASED_NAME,
        given_name: null,
        family_name: null,
        department: null,
        job_title: null,
        external_id: null,
        is_active: false,
        deactivated_at: trx.raw("coalesce(deactivated_at, now())"),
        scim_deleted_at: trx.raw("coalesce(scim_deleted_at, now())"),
        erased_at: trx.fn.now(),
      });
    await trx("audit_log").insert({
      org_id: erasure.orgId,
      actor_id: record.requested_by,
      action: "person.erased",
      target_type: "person_erasure",
      target_id: erasure.id,
      details: JSON.stringify({ learning_records: erasure.keepLearningRecords ? "kept" : "erased" }),
    });
    await trx("person_erasures")
      .where({ id: erasure.id })
      .update({ status: "completed", step: "done", error: null, finished_at: trx.fn.now(), updated_at: trx.fn.now() });
  });
}
