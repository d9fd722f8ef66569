/**
 * Erasing one person (GDPR article 17), and the record of it (`person_erasures`).
 *
 * What goes (steps 1–4 are ./person-erasure-rows.ts), in batches of short transactions that each
 * add their counts to the record (so a job killed between two batches resumes with exact totals,
 * and a batch never holds big locks):
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
 *    scrubbed: what they said is replaced, the row (that something happened) stays; so are their
 *    id, email and name in admins' assistant sessions (./person-erasure-admin-chats.ts);
 * 5. last, their row is anonymised (`erased-<erasure id>@invalid`, "Erased person", inactive,
 *    hidden from SCIM, `erased_at`), and one `person.erased` audit row says that it happened and
 *    by whom, not what; all in one transaction that also closes the record.
 *
 * The row is kept, not deleted, so the learning records and usage totals the company keeps still
 * add up and every foreign key stays valid; nothing left on it says who the person was.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { recordAudit } from "./audit-log";
import {
  addOperationCounts,
  completeOperation,
  failOperation,
  OPERATION_COLUMNS,
  type OperationRecord,
  parseOperation,
  requeueFailedOperation,
} from "./operations";

/** A person's erasure: the operation record (./operations.ts) and whose it is; its counts are what it removed. */
export interface PersonErasureRow extends OperationRecord {
  org_id: string;
  user_id: string;
  requested_by: string | null;
  keep_learning_records: boolean;
}

const COLUMNS = [...OPERATION_COLUMNS, "org_id", "user_id", "requested_by", "keep_learning_records"];
const parseRow = (row: Record<string, unknown> | undefined) => parseOperation<PersonErasureRow>(row);

/** What the person is, as an erasure request checks it against the confirmation. */
export interface ErasureTarget {
  id: string;
  email: string;
  role: "admin" | "employee";
  erased_at: Date | null;
  /** Set when their erasure was asked for (and never cleared): from then on they count as erased. */
  erasure_requested_at: Date | null;
}

export async function findErasureTarget(db: Db, orgId: string, userId: string): Promise<ErasureTarget | undefined> {
  return db("users").select("id", "email", "role", "erased_at", "erasure_requested_at").where({ id: userId, org_id: orgId }).first();
}

/**
 * Whether the person counts as erased: their erasure was asked for (queued, running, failed) or is
 * done. From the request on, nothing may change, reactivate or export them; the database itself
 * keeps such a row inactive (CHECK `users_erasure_locks_out`).
 */
export async function isErased(db: Db | Knex.Transaction, orgId: string, userId: string): Promise<boolean> {
  const row = await db("users")
    .where({ id: userId, org_id: orgId })
    .where((either) => either.whereNotNull("erasure_requested_at").orWhereNotNull("erased_at"))
    .first("id");
  return Boolean(row);
}

/**
 * Opens the person's erasure and locks them out at once, in one transaction: the account is
 * deactivated (every request re-reads it: their tokens stop working), marked `erasure_requested_at`
 * (so no path can reactivate it: see `isErased`) and their refresh tokens are revoked. Asking again while one is open answers it (`queue: false`); a failed one is queued
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
      .update({
        is_active: false,
        deactivated_at: trx.raw("coalesce(deactivated_at, now())"),
        erasure_requested_at: trx.raw("coalesce(erasure_requested_at, now())"),
      });
    await trx("refresh_tokens").where({ org_id: request.orgId, user_id: request.userId }).whereNull("revoked_at").update({ revoked_at: trx.fn.now() });
    const open = parseRow(
      await trx("person_erasures")
        .select(COLUMNS)
        .where({ org_id: request.orgId, user_id: request.userId })
        .whereIn("status", ["queued", "running", "failed"])
        .first(),
    );
    if (open && open.status !== "failed") return { erasure: open, queue: false };
    const erasure = open
      ? await requeueFailedOperation<PersonErasureRow>(trx, "person_erasures", open.id, COLUMNS)
      : parseRow(
          (
            await trx("person_erasures")
              .insert({ org_id: request.orgId, user_id: request.userId, requested_by: request.requestedBy, keep_learning_records: request.keepLearningRecords })
              .returning(COLUMNS)
          )[0],
        )!;
    return { erasure, queue: true };
  });
}

export async function latestPersonErasure(db: Db, orgId: string, userId: string): Promise<PersonErasureRow | undefined> {
  return parseRow(await db("person_erasures").select(COLUMNS).where({ org_id: orgId, user_id: userId }).orderBy("created_at", "desc").first());
}

export async function findPersonErasure(db: Db, orgId: string, erasureId: string): Promise<PersonErasureRow | undefined> {
  return parseRow(await db("person_erasures").select(COLUMNS).where({ id: erasureId, org_id: orgId }).first());
}

/** Marks it failed with a code and a sentence of ours (the job could not be queued, or its last attempt failed). */
export const failPersonErasure = (db: Db, erasureId: string, failure: { code: string; message: string }): Promise<boolean> =>
  failOperation(db, "person_erasures", erasureId, failure);

export const addErased = (db: Db | Knex.Transaction, erasureId: string, counts: Record<string, number>): Promise<void> =>
  addOperationCounts(db, "person_erasures", erasureId, counts);

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

/** What the steps of an erasure work on. */
export interface ErasureOfPerson {
  id: string;
  orgId: string;
  userId: string;
  keepLearningRecords: boolean;
}

/** The anonymised person's name, as lists and reports show the row from now on. */
export const ERASED_NAME = "Erased person";

/**
 * Step 5: anonymises the row, writes the one `person.erased` audit row (actor: the admin who asked;
 * target: this erasure's record) and closes the record, in one transaction. A resumed job that got
 * this far before finds the record completed and does nothing.
 */
export async function completePersonErasure(db: Db, erasure: ErasureOfPerson): Promise<void> {
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
        erasure_requested_at: trx.raw("coalesce(erasure_requested_at, now())"),
        erased_at: trx.fn.now(),
      });
    await recordAudit(trx, {
      name: "person.erased",
      orgId: erasure.orgId,
      actor: record.requested_by ? { type: "person", id: record.requested_by } : { type: "system" },
      target: { type: "person_erasure", id: erasure.id },
      details: { learning_records: erasure.keepLearningRecords ? "kept" : "erased" },
    });
    await completeOperation(trx, "person_erasures", erasure.id);
  });
}
