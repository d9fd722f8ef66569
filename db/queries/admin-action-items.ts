/**
 * Executing one frozen item of a confirmed admin action, as table access: commands/apply-action-item.ts
 * runs an item in its own transaction that locks the item, applies it, records its audit event
 * and marks it done — so a crash loses at most the item in flight (rolled back) and a re-run of a
 * done item changes nothing. These are the reads and writes it makes inside that transaction.
 */
import { revokeRefreshTokensOfUser } from "./refresh-tokens";
import type { Knex } from "knex";
import type { ActionItemRow, AdminActionRow } from "./admin-actions";

/** The transaction an item's change runs in. */
export type ItemTransaction = Knex.Transaction;

export interface ItemChange {
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
}

/** What became of one item: applied now, done by an earlier run, or not started because the action is no longer running. */
export type ItemOutcome = "applied" | "already" | "stopped";

/**
 * Whether the action is still running, holding its row FOR SHARE until the item's transaction
 * ends. A stop takes the row FOR UPDATE, so it waits for the item in flight to commit, and every
 * item that starts after the stop committed sees it: no item starts once an action is stopped,
 * whichever worker runs it, and a redelivered job after a crash sees the stop as well.
 */
export async function stillRunning(trx: ItemTransaction, orgId: string, actionId: string): Promise<boolean> {
  const row = await trx("admin_actions").where({ id: actionId, org_id: orgId }).forShare().first("status");
  return row?.status === "running";
}

/** The item locked for its run; undefined when it no longer exists. */
export async function lockActionItem(trx: ItemTransaction, action: AdminActionRow, itemId: string): Promise<ActionItemRow | undefined> {
  return trx<ActionItemRow>("admin_action_items").where({ id: itemId, org_id: action.org_id, action_id: action.id }).forUpdate().first();
}

/** The item is done, with the state it left. */
export async function markItemDone(trx: ItemTransaction, itemId: string, after: unknown): Promise<void> {
  await trx("admin_action_items")
    .where({ id: itemId })
    .update({ status: "done", error: null, after: JSON.stringify(after), updated_at: trx.fn.now() });
}

export interface ItemUser {
  id: string;
  name: string;
  role: string;
  is_active: boolean;
}

/** The user as the item finds them; `lock` holds the row until the item's transaction ends. */
export async function userForItem(trx: ItemTransaction, orgId: string, userId: string, lock = false): Promise<ItemUser | undefined> {
  const query = trx("users").where({ id: userId, org_id: orgId });
  return (lock ? query.forUpdate() : query).first("id", "name", "role", "is_active");
}

export async function courseForItem(trx: ItemTransaction, orgId: string, courseId: string, lock = false): Promise<{ id: string; status: string } | undefined> {
  const query = trx("courses").where({ id: courseId, org_id: orgId });
  return (lock ? query.forUpdate() : query).first("id", "status");
}

/** One employee's enrollment in one course, locked. */
export async function lockEnrollmentOf(
  trx: ItemTransaction,
  orgId: string,
  userId: string,
  courseId: string,
): Promise<{ id: string; status: string; deadline: Date | string | null } | undefined> {
  return trx("enrollments").where({ org_id: orgId, user_id: userId, course_id: courseId }).forUpdate().first("id", "status", "deadline");
}

export async function insertEnrollment(trx: ItemTransaction, row: { orgId: string; userId: string; courseId: string; deadline: string | null }): Promise<void> {
  await trx("enrollments").insert({ org_id: row.orgId, user_id: row.userId, course_id: row.courseId, status: "not_started", deadline: row.deadline });
}

export async function setEnrollmentDeadline(trx: ItemTransaction, enrollmentId: string, deadline: string): Promise<void> {
  await trx("enrollments").where({ id: enrollmentId }).update({ deadline });
}

export async function lockEnrollment(trx: ItemTransaction, orgId: string, enrollmentId: string): Promise<{ id: string; status: string } | undefined> {
  return trx("enrollments").where({ id: enrollmentId, org_id: orgId }).forUpdate().first("id", "status");
}

export async function completeEnrollment(trx: ItemTransaction, enrollmentId: string): Promise<void> {
  await trx("enrollments").where({ id: enrollmentId }).update({ status: "completed", completed_at: trx.fn.now() });
}

export async function skillExists(trx: ItemTransaction, orgId: string, skillId: string): Promise<boolean> {
  return Boolean(await trx("skills").where({ id: skillId, org_id: orgId }).first("id"));
}

/** The employee's current level of the skill (null: none), locked until the item's transaction ends. */
export async function lockSkillLevel(trx: ItemTransaction, orgId: string, userId: string, skillId: string): Promise<number | null> {
  const row = await trx("user_skills").where({ org_id: orgId, user_id: userId, skill_id: skillId }).forUpdate().first("level");
  return row?.level ?? null;
}

export async function setSkillLevel(trx: ItemTransaction, row: { orgId: string; userId: string; skillId: string; level: number }): Promise<void> {
  await trx("user_skills")
    .insert({ org_id: row.orgId, user_id: row.userId, skill_id: row.skillId, level: row.level, updated_at: trx.fn.now() })
    .onConflict(["user_id", "skill_id"])
    .merge(["level", "updated_at"]);
}

export async function deactivateUser(trx: ItemTransaction, orgId: string, userId: string): Promise<void> {
  await trx("users").where({ id: userId, org_id: orgId }).update({ is_active: false, deactivated_at: trx.fn.now() });
  // A deactivated person's browser must not mint new access tokens from its refresh cookie.
  await revokeRefreshTokensOfUser(trx, orgId, userId);
}

export async function archiveCourse(trx: ItemTransaction, courseId: string): Promise<void> {
  await trx("courses").where({ id: courseId }).update({ status: "archived", archived_at: trx.fn.now() });
}
