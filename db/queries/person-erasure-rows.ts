/**
 * Steps 1–4 of a person's erasure (see ./person-erasure.ts): their chats, every row tied to them by
 * a cascading foreign key, every nullable reference to them, and the audit rows and admin action
 * items that name them — `batchRows` at a time, each batch one transaction that adds its count to
 * the record. Every statement selects what is still there, so a repeated or resumed run finds
 * nothing more to do and adds nothing to the counts.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { addErased, type ErasureOfPerson, personOwnedIds } from "./person-erasure";

/** The learning records an organisation keeps on the anonymised row unless it asks for them to go too. */
const LEARNING_TABLES = new Set(["enrollments", "user_skills", "exercise_attempts", "spaced_repetition"]);

/** The first UUID of a usage row's `call_key`: the turn or session of the job that made the call (workers/llm/call-keys.ts). */
const CALL_KEY_OWNER = "substring(call_key from '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')";

type OnBatch = (kind: string, count: number) => Promise<void>;

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

/**
 * Runs `sql` (which ends in `LIMIT ?`, bound to `batchRows`) until it touches nothing; each run is
 * one transaction that adds its row count under `kind`.
 */
function batcher(db: Db, erasure: ErasureOfPerson, batchRows: number, onBatch: OnBatch) {
  return async (kind: string, sql: string, bindings: readonly Knex.RawBinding[]): Promise<void> => {
    for (;;) {
      const touched = await db.transaction(async (trx) => {
        const result: { rowCount: number | null } = await trx.raw(sql, [...bindings, batchRows]);
        const count = result.rowCount ?? 0;
        await addErased(trx, erasure.id, { [kind]: count });
        return count;
      });
      if (touched === 0) return;
      await onBatch(kind, touched);
    }
  };
}

export async function erasePersonRowsInBatches(db: Db, erasure: ErasureOfPerson, batchRows: number, onBatch: OnBatch): Promise<void> {
  const { orgId, userId } = erasure;
  const batch = batcher(db, erasure, batchRows, onBatch);
  const theirSessions = "SELECT id FROM chat_sessions WHERE org_id = ? AND user_id = ?";
  // First, while their messages still name their turns: usage rows keep no key that leads back to them.
  const owned = await personOwnedIds(db, orgId, userId);
  await batch(
    "unlinked.llm_usage_log.call_key",
    `UPDATE llm_usage_log SET call_key = 'erased:' || id::text WHERE ctid = ANY(ARRAY(
       SELECT ctid FROM llm_usage_log WHERE org_id = ? AND call_key IS NOT NULL AND call_key NOT LIKE 'erased:%'
          AND (user_id = ? OR ${CALL_KEY_OWNER} = ANY(?::text[])) LIMIT ?))`,
    [orgId, userId, [...owned.turnIds, ...owned.sessionIds]],
  );
  await batch(
    "rows.question_vectors",
    `DELETE FROM question_vectors WHERE ctid = ANY(ARRAY(
       SELECT qv.ctid FROM question_vectors qv JOIN chat_messages m ON m.id = qv.message_id
        WHERE qv.org_id = ? AND m.session_id IN (${theirSessions}) LIMIT ?))`,
    [orgId, orgId, userId],
  );
  await batch(
    "rows.chat_feedback",
    "DELETE FROM chat_feedback WHERE ctid = ANY(ARRAY(SELECT ctid FROM chat_feedback WHERE org_id = ? AND user_id = ? LIMIT ?))",
    [orgId, userId],
  );
  await batch(
    "rows.chat_messages",
    `DELETE FROM chat_messages WHERE ctid = ANY(ARRAY(SELECT ctid FROM chat_messages WHERE org_id = ? AND session_id IN (${theirSessions}) LIMIT ?))`,
    [orgId, orgId, userId],
  );
  await batch(
    "rows.admin_action_items",
    `DELETE FROM admin_action_items WHERE ctid = ANY(ARRAY(
       SELECT ctid FROM admin_action_items WHERE org_id = ? AND action_id IN (SELECT id FROM admin_actions WHERE org_id = ? AND user_id = ?) LIMIT ?))`,
    [orgId, orgId, userId],
  );
  const references = await referencesToUsers(db);
  for (const { table, column } of references.filter((reference) => reference.onDelete === "cascade")) {
    if (table === "person_erasures" || (erasure.keepLearningRecords && LEARNING_TABLES.has(table))) continue;
    await batch(`rows.${table}`, "DELETE FROM ?? WHERE ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE org_id = ? AND ?? = ? LIMIT ?))", [
      table,
      table,
      orgId,
      column,
      userId,
    ]);
  }
  for (const { table, column } of references.filter((reference) => reference.onDelete === "set null")) {
    await batch(`unlinked.${table}.${column}`, "UPDATE ?? SET ?? = NULL WHERE ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE ?? = ? LIMIT ?))", [
      table,
      column,
      table,
      column,
      userId,
    ]);
  }
  // An operator's deletion request names them without a foreign key (the record outlives their organisation).
  await batch(
    "unlinked.org_deletions.requested_by",
    "UPDATE org_deletions SET requested_by = NULL WHERE ctid = ANY(ARRAY(SELECT ctid FROM org_deletions WHERE requested_by = ? LIMIT ?))",
    [userId],
  );
  await scrubMentions(db, erasure, batch);
}

/**
 * Audit rows and admin action items (another admin's change to this person) that carry the
 * person's id, email or one of their enrolments' ids keep that something happened, not what was
 * said about whom; so does an admin action with such an item (its preview lists names). The email
 * is read from their row, which is anonymised only after this step, so a resumed run still has it.
 */
async function scrubMentions(db: Db, erasure: ErasureOfPerson, batch: ReturnType<typeof batcher>): Promise<void> {
  const person = await db("users").select("email").where({ id: erasure.userId, org_id: erasure.orgId }).first();
  const enrolments = await db("enrollments").where({ org_id: erasure.orgId, user_id: erasure.userId }).pluck("id");
  const needles = [erasure.userId, ...(person ? [person.email] : []), ...enrolments].map((needle: string) => String(needle).toLowerCase());
  /** `column::text` contains one of the needles, for each column: plain substring tests (no LIKE wildcards in an email's `_`). */
  const mentions = (columns: string[]): { sql: string; bindings: string[] } => {
    const clauses = needles.flatMap((needle) => columns.map((column) => ({ sql: `position(?::text in lower(coalesce(${column}::text, ''))) > 0`, needle })));
    return { sql: clauses.map((clause) => clause.sql).join(" OR "), bindings: clauses.map((clause) => clause.needle) };
  };
  const audit = mentions(["target_id", "details", "before", "after"]);
  const target = mentions(["target_id"]);
  // A target that is not the person (an export of theirs: person.export_downloaded) stays: who did what to which record survives.
  await batch(
    "scrubbed.audit_log",
    // What kind of change it was stays (an assistant's item names its tool in details.tool).
    `UPDATE audit_log SET details = jsonb_strip_nulls(jsonb_build_object('scrubbed', 'the person this named was erased', 'tool', details->'tool')),
            before = NULL, after = NULL,
            target_id = CASE WHEN ${target.sql} THEN NULL ELSE target_id END
      WHERE ctid = ANY(ARRAY(SELECT ctid FROM audit_log WHERE org_id = ? AND (${audit.sql}) LIMIT ?))`,
    [...target.bindings, erasure.orgId, ...audit.bindings],
  );
  const items = mentions(["target", "label", "before", "after", "error"]);
  await batch(
    "scrubbed.admin_action_items",
    `UPDATE admin_action_items SET target = '{"erased": true}'::jsonb, label = 'an erased person', before = NULL, after = NULL, error = NULL
      WHERE ctid = ANY(ARRAY(SELECT ctid FROM admin_action_items WHERE org_id = ? AND (${items.sql}) LIMIT ?))`,
    [erasure.orgId, ...items.bindings],
  );
  const actions = mentions(["args", "preview", "summary", "estimate"]);
  await batch(
    "scrubbed.admin_actions",
    `UPDATE admin_actions SET args = '{"scrubbed": true}'::jsonb, preview = 'It named a person who was erased since.', summary = NULL, estimate = NULL
      WHERE ctid = ANY(ARRAY(SELECT ctid FROM admin_actions WHERE org_id = ? AND args <> '{"scrubbed": true}'::jsonb AND (
        ${actions.sql} OR id IN (SELECT action_id FROM admin_action_items WHERE org_id = ? AND target = '{"erased": true}'::jsonb)) LIMIT ?))`,
    [erasure.orgId, ...actions.bindings, erasure.orgId],
  );
}
