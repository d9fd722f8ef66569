/**
 * Pending actions of the admin assistant: proposed in a turn with their targets frozen as items,
 * then confirmed (or rejected, or left to expire), run item by item, and finished as completed,
 * partial or failed — or stopped by an admin (admin-action-stop.ts). Every status change is one conditional UPDATE, so two confirmations (two
 * tabs, a retried request) can never both win.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import type { ActionEstimate } from "./json-columns";

export type ActionStatus = "pending" | "confirmed" | "running" | "completed" | "partial" | "failed" | "rejected" | "expired" | "stopped";
export type ItemStatus = "pending" | "done" | "failed";

export interface AdminActionRow {
  id: string;
  org_id: string;
  user_id: string;
  session_id: string | null;
  turn_id: string | null;
  tool: string;
  args: Record<string, unknown>;
  preview: string;
  status: ActionStatus;
  /** As stored: read it with `actionEstimate` (json-columns.ts). */
  estimate: unknown;
  total: number;
  done: number;
  failed: number;
  /** As stored: read it with `actionSummary` (json-columns.ts). */
  summary: unknown;
  expires_at: Date;
  confirmed_by: string | null;
  confirmed_at: Date | null;
  finished_at: Date | null;
  runs: number;
  /** When the proposing turn's `done` went out: from then on the admin has seen it, and a reply may decide it. */
  announced_at: Date | null;
  /** The admin who last resumed the action's failed items. */
  resumed_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ActionItemRow {
  id: string;
  org_id: string;
  action_id: string;
  position: number;
  target: Record<string, unknown>;
  label: string;
  status: ItemStatus;
  error: string | null;
  before: unknown;
  after: unknown;
  updated_at: Date;
}

export interface NewActionItem {
  target: Record<string, unknown>;
  label: string;
  before: unknown;
  after: unknown;
}

export interface NewAction {
  orgId: string;
  userId: string;
  sessionId: string;
  turnId: string;
  tool: string;
  args: Record<string, unknown>;
  preview: string;
  estimate: NonNullable<ActionEstimate>;
  expiresAt: Date;
  items: NewActionItem[];
}

const json = (value: unknown): string => JSON.stringify(value ?? null);

export async function createPendingAction(trx: Knex.Transaction, action: NewAction): Promise<AdminActionRow> {
  const [row]: AdminActionRow[] = await trx("admin_actions")
    .insert({
      org_id: action.orgId,
      user_id: action.userId,
      session_id: action.sessionId,
      turn_id: action.turnId,
      tool: action.tool,
      args: json(action.args),
      preview: action.preview,
      estimate: json(action.estimate),
      total: action.items.length,
      expires_at: action.expiresAt,
    })
    .returning("*");
  const rows = action.items.map((item, position) => ({
    org_id: action.orgId,
    action_id: row!.id,
    position,
    target: json(item.target),
    label: item.label,
    before: json(item.before),
    after: json(item.after),
  }));
  for (let i = 0; i < rows.length; i += 500) await trx("admin_action_items").insert(rows.slice(i, i + 500));
  return row!;
}

export async function findAction(db: Db, orgId: string, actionId: string): Promise<AdminActionRow | undefined> {
  return db<AdminActionRow>("admin_actions").where({ id: actionId, org_id: orgId }).first();
}

export async function listActions(db: Db, orgId: string, options: { status?: ActionStatus; limit: number }): Promise<AdminActionRow[]> {
  const query = db<AdminActionRow>("admin_actions").where({ org_id: orgId }).orderBy("created_at", "desc").limit(options.limit);
  if (options.status) query.andWhere({ status: options.status });
  return query;
}

export async function listActionItems(db: Db, orgId: string, actionId: string): Promise<ActionItemRow[]> {
  return db<ActionItemRow>("admin_action_items").where({ org_id: orgId, action_id: actionId }).orderBy("position");
}

/**
 * The pending action a chat message may answer: proposed by another, earlier turn of the session
 * whose `done` went out before the message was stored (so the admin saw it). A turn's own
 * proposal, or one still being planned or shown, is never returned. Expired ones are marked so
 * on the way.
 */
export async function findDecidableAction(
  db: Db,
  orgId: string,
  reply: { sessionId: string; turnId: string; storedAt: Date },
): Promise<AdminActionRow | undefined> {
  await db("admin_actions")
    .where({ org_id: orgId, session_id: reply.sessionId, status: "pending" })
    .andWhere("expires_at", "<=", db.fn.now())
    .update({ status: "expired", updated_at: db.fn.now() });
  return db<AdminActionRow>("admin_actions")
    .where({ org_id: orgId, session_id: reply.sessionId, status: "pending" })
    .whereNot({ turn_id: reply.turnId })
    .andWhere("announced_at", "<", reply.storedAt)
    .orderBy("created_at", "desc")
    .first();
}

/** The action a turn proposed on an earlier attempt, in any status (a turn proposes at most one). */
export async function findActionOfTurn(db: Db, orgId: string, turnId: string): Promise<AdminActionRow | undefined> {
  return db<AdminActionRow>("admin_actions").where({ org_id: orgId, turn_id: turnId }).orderBy("created_at").first();
}

/** The proposing turn's `done` went out: the action may be answered by the admin's next message. */
export async function markActionAnnounced(db: Db, orgId: string, actionId: string): Promise<void> {
  await db("admin_actions").where({ id: actionId, org_id: orgId }).whereNull("announced_at").update({ announced_at: db.fn.now() });
}

/**
 * Rejects what a turn left pending (it failed for good, was cancelled or was lost); the rows that
 * changed. A turn whose answer is stored has shown its proposal, which then stays for the admin.
 */
export async function withdrawActionsOfTurn(db: Db, orgId: string, turnId: string, reason: string): Promise<AdminActionRow[]> {
  return db("admin_actions")
    .where({ org_id: orgId, turn_id: turnId, status: "pending" })
    .whereNotExists(function () {
      this.select(db.raw("1")).from("chat_messages").where({ org_id: orgId, turn_id: turnId, role: "assistant", status: "complete" });
    })
    .update({ status: "rejected", summary: json({ reason }), finished_at: db.fn.now(), updated_at: db.fn.now() })
    .returning("*");
}

export type Transition = { ok: true; action: AdminActionRow } | { ok: false; status: ActionStatus | "missing" };

/** Why a transition did not happen: the row's status now (an expired pending one is marked expired). */
async function refusal(db: Db, orgId: string, actionId: string): Promise<Transition> {
  const row = await findAction(db, orgId, actionId);
  if (!row) return { ok: false, status: "missing" };
  if (row.status === "pending" && row.expires_at.getTime() <= Date.now()) {
    await db("admin_actions").where({ id: actionId, org_id: orgId, status: "pending" }).update({ status: "expired", updated_at: db.fn.now() });
    return { ok: false, status: "expired" };
  }
  return { ok: false, status: row.status };
}

/** pending (and not expired) → confirmed by `confirmerId`; counts a run. */
export async function confirmPendingAction(db: Db, orgId: string, actionId: string, confirmerId: string): Promise<Transition> {
  const [row]: AdminActionRow[] = await db("admin_actions")
    .where({ id: actionId, org_id: orgId, status: "pending" })
    .andWhere("expires_at", ">", db.fn.now())
    .update({ status: "confirmed", confirmed_by: confirmerId, confirmed_at: db.fn.now(), runs: db.raw("runs + 1"), updated_at: db.fn.now() })
    .returning("*");
  return row ? { ok: true, action: row } : refusal(db, orgId, actionId);
}

export async function rejectPendingAction(db: Db, orgId: string, actionId: string, reason: string): Promise<Transition> {
  const [row]: AdminActionRow[] = await db("admin_actions")
    .where({ id: actionId, org_id: orgId, status: "pending" })
    .update({ status: "rejected", summary: json({ reason }), finished_at: db.fn.now(), updated_at: db.fn.now() })
    .returning("*");
  return row ? { ok: true, action: row } : refusal(db, orgId, actionId);
}

/** A confirmation whose job could not be queued goes back to pending, as if never confirmed. */
export async function undoConfirmation(db: Db, orgId: string, actionId: string): Promise<void> {
  await db("admin_actions")
    .where({ id: actionId, org_id: orgId, status: "confirmed" })
    .update({ status: "pending", confirmed_by: null, confirmed_at: null, runs: db.raw("runs - 1"), updated_at: db.fn.now() });
}

/** The statuses a resume starts from: a run that ended with items not done. */
const RESUMABLE: ActionStatus[] = ["partial", "failed", "stopped"];

/**
 * partial/failed/stopped and not expired → confirmed again by `resumerId`, with its failed items
 * back to pending (a stop left its undone items pending already); counts a run. An action past
 * its expiry is refused as `expired` (its status is kept).
 */
export async function reopenForResume(trx: Knex.Transaction, orgId: string, actionId: string, resumerId: string): Promise<Transition> {
  const [row]: AdminActionRow[] = await trx("admin_actions")
    .where({ id: actionId, org_id: orgId })
    .whereIn("status", RESUMABLE)
    .andWhere("expires_at", ">", trx.fn.now())
    .update({ status: "confirmed", resumed_by: resumerId, runs: trx.raw("runs + 1"), finished_at: null, updated_at: trx.fn.now() })
    .returning("*");
  if (!row) {
    const current = await findAction(trx, orgId, actionId);
    if (current && RESUMABLE.includes(current.status)) return { ok: false as const, status: "expired" as const };
    return refusal(trx, orgId, actionId);
  }
  await trx("admin_action_items")
    .where({ org_id: orgId, action_id: actionId, status: "failed" })
    .update({ status: "pending", error: null, updated_at: trx.fn.now() });
  const counts = await countItems(trx, orgId, actionId);
  await trx("admin_actions").where({ id: actionId }).update({ done: counts.done, failed: counts.failed });
  return { ok: true as const, action: { ...row, ...counts } };
}

/** confirmed → running (a redelivered job finds it running already and carries on). */
export async function startRunning(db: Db, orgId: string, actionId: string): Promise<AdminActionRow | undefined> {
  const [row]: AdminActionRow[] = await db("admin_actions")
    .where({ id: actionId, org_id: orgId })
    .whereIn("status", ["confirmed", "running"])
    .update({ status: "running", updated_at: db.fn.now() })
    .returning("*");
  return row;
}

export async function nextPendingItems(db: Db, orgId: string, actionId: string, limit: number): Promise<ActionItemRow[]> {
  return db<ActionItemRow>("admin_action_items").where({ org_id: orgId, action_id: actionId, status: "pending" }).orderBy("position").limit(limit);
}

export async function countItems(db: Db, orgId: string, actionId: string): Promise<{ done: number; failed: number; total: number }> {
  const row = await db("admin_action_items")
    .where({ org_id: orgId, action_id: actionId })
    .first(
      db.raw("COUNT(*) FILTER (WHERE status = 'done')::int AS done"),
      db.raw("COUNT(*) FILTER (WHERE status = 'failed')::int AS failed"),
      db.raw("COUNT(*)::int AS total"),
    );
  return { done: row.done, failed: row.failed, total: row.total };
}

/** The counts of a running action; false once it is not running (a stop wrote its own). */
export async function recordProgress(db: Db, orgId: string, actionId: string, counts: { done: number; failed: number }): Promise<boolean> {
  const changed = await db("admin_actions")
    .where({ id: actionId, org_id: orgId, status: "running" })
    .update({ done: counts.done, failed: counts.failed, updated_at: db.fn.now() });
  return changed > 0;
}

/** The failed items as the action's summary lists them. */
export async function failedItemsOf(
  db: Db,
  orgId: string,
  actionId: string,
): Promise<Array<{ id: string; position: number; label: string; error: string | null }>> {
  return db("admin_action_items")
    .where({ org_id: orgId, action_id: actionId, status: "failed" })
    .select("id", "position", "label", "error")
    .orderBy("position");
}

/**
 * confirmed/running → completed / partial / failed, from the items' final state; undefined when
 * the action is in neither status any more (stopped, or finished by whoever stopped it).
 */
export async function finishAction(db: Db, orgId: string, actionId: string): Promise<AdminActionRow | undefined> {
  const counts = await countItems(db, orgId, actionId);
  const status: ActionStatus = counts.failed === 0 ? "completed" : counts.done === 0 ? "failed" : "partial";
  const failedItems = await failedItemsOf(db, orgId, actionId);
  const [row]: AdminActionRow[] = await db("admin_actions")
    .where({ id: actionId, org_id: orgId })
    .whereIn("status", ["confirmed", "running"])
    .update({
      status,
      done: counts.done,
      failed: counts.failed,
      summary: json({ failed_items: failedItems }),
      finished_at: db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning("*");
  return row;
}

/**
 * The session's action queued or running that a chat message may stop: confirmed before the
 * message was stored, so a "stop" sent before a confirmation never stops what it confirmed.
 */
export async function findStoppableAction(db: Db, orgId: string, reply: { sessionId: string; storedAt: Date }): Promise<AdminActionRow | undefined> {
  return db<AdminActionRow>("admin_actions")
    .where({ org_id: orgId, session_id: reply.sessionId })
    .whereIn("status", ["confirmed", "running"])
    .andWhere("confirmed_at", "<", reply.storedAt)
    .orderBy("created_at", "desc")
    .first();
}

/** The session's newest action in any status (to answer a "yes" that came too late). */
export async function findLatestActionForSession(db: Db, orgId: string, sessionId: string): Promise<AdminActionRow | undefined> {
  return db<AdminActionRow>("admin_actions").where({ org_id: orgId, session_id: sessionId }).orderBy("created_at", "desc").first();
}

/** Marks every item still pending as failed with `reason` (a run that could not happen or finish). */
export async function failPendingItems(db: Db, orgId: string, actionId: string, reason: string): Promise<void> {
  await db("admin_action_items")
    .where({ org_id: orgId, action_id: actionId, status: "pending" })
    .update({ status: "failed", error: reason, updated_at: db.fn.now() });
}
