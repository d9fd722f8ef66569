/**
 * How long an organisation keeps its chats (`org_retention`), and the sweep that enforces it
 * (workers/maintenance/chat-retention.ts): sessions whose last activity (`updated_at`) is older
 * than the retention go, a batch per transaction, with their messages, feedback and question
 * vectors (the cascade from `chat_sessions`), and the batch's counts are added to the
 * organisation's sweep record in that same transaction, so a sweep that dies between two batches
 * resumes with exact totals.
 *
 * Usage rows (`llm_usage_log`) are billing records and stay: they carry no session or message
 * column, but their `call_key` names the job of the turn or summary that made the call
 * (`tutor-generate:<turnId>-generate:…`, workers/llm/call-keys.ts). It only deduplicates a retried
 * job's charge, long over for a chat kept at least a day, so the batch clears it: what is left
 * (organisation, person, model, tokens, cost, time) no longer points at a deleted turn.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;
const DAY_MS = 86_400_000;

export interface RetentionRow {
  org_id: string;
  chat_retention_days: number | null;
  updated_by: string | null;
  updated_at: Date | null;
  sweep_started_at: Date | null;
  sweep_sessions: number;
  sweep_messages: number;
  last_sweep_at: Date | null;
  last_sweep_sessions: number;
  last_sweep_messages: number;
}

export const RETENTION_COLUMNS = [
  "org_id",
  "chat_retention_days",
  "updated_by",
  "updated_at",
  "sweep_started_at",
  "sweep_sessions",
  "sweep_messages",
  "last_sweep_at",
  "last_sweep_sessions",
  "last_sweep_messages",
] as const;

const neverSet = (orgId: string): RetentionRow => ({
  org_id: orgId,
  chat_retention_days: null,
  updated_by: null,
  updated_at: null,
  sweep_started_at: null,
  sweep_sessions: 0,
  sweep_messages: 0,
  last_sweep_at: null,
  last_sweep_sessions: 0,
  last_sweep_messages: 0,
});

/** The organisation's retention and sweep record; an organisation that never set one keeps everything. */
export async function retentionOf(db: Db | Knex.Transaction, orgId: string): Promise<RetentionRow> {
  return (await db("org_retention").select(RETENTION_COLUMNS).where({ org_id: orgId }).first()) ?? neverSet(orgId);
}

/** Organisations the sweep visits: those with a retention, and any whose sweep was left half-way (its setting cleared meanwhile). */
export async function organisationsToSweep(db: Db): Promise<Array<{ orgId: string; days: number | null }>> {
  const rows = await db("org_retention as r")
    .join("organizations as o", "o.id", "r.org_id")
    // An organisation being deleted loses everything anyway (org-delete): the sweep leaves it to that job.
    .whereNull("o.deleting_since")
    .andWhere((where) => where.whereNotNull("r.chat_retention_days").orWhereNotNull("r.sweep_started_at"))
    .orderBy("r.org_id")
    .select("r.org_id", "r.chat_retention_days");
  return rows.map((row) => ({ orgId: row.org_id, days: row.chat_retention_days ?? null }));
}

/** Opens the organisation's sweep, or keeps the one a killed run left open (its counts go on adding up). */
export async function openSweep(db: Db, orgId: string): Promise<void> {
  await db("org_retention")
    .where({ org_id: orgId })
    .whereNull("sweep_started_at")
    .update({ sweep_started_at: db.fn.now(), sweep_sessions: 0, sweep_messages: 0 });
}

/** Closes the sweep: its totals become the last sweep's. */
export async function closeSweep(db: Db, orgId: string): Promise<RetentionRow> {
  const [row] = await db("org_retention")
    .where({ org_id: orgId })
    .update({
      last_sweep_at: db.fn.now(),
      last_sweep_sessions: db.raw("sweep_sessions"),
      last_sweep_messages: db.raw("sweep_messages"),
      sweep_started_at: null,
      sweep_sessions: 0,
      sweep_messages: 0,
    })
    .returning(RETENTION_COLUMNS);
  return row as RetentionRow;
}

export interface ExpiredSessions {
  sessionIds: string[];
  /** Their turns: what their Redis keys and usage rows are named by. */
  turnIds: string[];
  /** When the first of them began: their usage rows are no older. */
  since: Date;
}

/** The organisation's `limit` oldest sessions whose last activity is before `cutoff`, and their turns. */
export async function expiredSessions(db: Db, orgId: string, cutoff: Date, limit: number): Promise<ExpiredSessions> {
  const sessions = await db("chat_sessions")
    .where({ org_id: orgId })
    .andWhere("updated_at", "<", cutoff)
    .orderBy("updated_at")
    .limit(limit)
    .select("id", "created_at");
  const sessionIds = sessions.map((row) => String(row.id));
  const since = new Date(Math.min(cutoff.getTime(), ...sessions.map((row) => new Date(row.created_at).getTime())));
  if (sessionIds.length === 0) return { sessionIds, turnIds: [], since };
  const turns = await db("chat_messages").where({ org_id: orgId }).whereIn("session_id", sessionIds).distinct("turn_id");
  return { sessionIds, turnIds: turns.map((row) => String(row.turn_id)), since };
}

/**
 * Deletes those of `sessionIds` still idle since before `cutoff` (one that came back to life since
 * they were read is kept), clears the call keys of their usage rows, and adds what went to the
 * sweep's counts: one transaction.
 */
export async function deleteExpiredSessions(
  db: Db,
  orgId: string,
  batch: ExpiredSessions,
  cutoff: Date,
): Promise<{ sessions: number; messages: number; usageRowsUnlinked: number }> {
  return db.transaction(async (trx) => {
    const locked = await trx("chat_sessions")
      .where({ org_id: orgId })
      .whereIn("id", batch.sessionIds)
      .andWhere("updated_at", "<", cutoff)
      .forUpdate()
      .select("id");
    const ids = locked.map((row) => String(row.id));
    if (ids.length === 0) return { sessions: 0, messages: 0, usageRowsUnlinked: 0 };
    const owners = [...ids, ...batch.turnIds];
    // The job part of a call key starts with the turn's (or, for a summary, the session's) id. The
    // time window keeps this on the (org_id, created_at) index, not all of the organisation's usage
    // (a summary can be charged a little after the session's last activity: a day's margin).
    const unlinked: number = await trx("llm_usage_log")
      .where({ org_id: orgId })
      .whereNotNull("call_key")
      .andWhere("created_at", ">=", batch.since)
      .andWhere("created_at", "<", new Date(cutoff.getTime() + DAY_MS))
      .andWhereRaw("left(split_part(call_key, ':', 2), 36) = ANY(?::text[])", [owners])
      .update({ call_key: null });
    const messages: number = await trx("chat_messages").where({ org_id: orgId }).whereIn("session_id", ids).delete();
    const sessions: number = await trx("chat_sessions").where({ org_id: orgId }).whereIn("id", ids).delete();
    await trx("org_retention")
      .where({ org_id: orgId })
      .update({ sweep_sessions: trx.raw("sweep_sessions + ?", [sessions]), sweep_messages: trx.raw("sweep_messages + ?", [messages]) });
    return { sessions, messages, usageRowsUnlinked: unlinked };
  });
}
