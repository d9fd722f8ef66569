/**
 * Executing one frozen item of a confirmed admin action. Each item runs in its own transaction
 * that locks the item, re-checks its targets against the organisation as it is now, applies the
 * change, writes the audit row and marks the item done — so a crash loses at most the item in
 * flight (rolled back) and a re-run of a done item changes nothing.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import type { ActionItemRow, AdminActionRow } from "./admin-actions";

/** The organisation changed since the proposal so that this item cannot run (e.g. target deactivated). */
export class ItemRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ItemRejected";
  }
}

export interface ItemChange {
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: each applier reads the fields its own action kind validated (workers/admin/tools)
type Applier = (trx: Knex.Transaction, orgId: string, target: Record<string, any>, action: AdminActionRow) => Promise<ItemChange>;

async function activeUser(trx: Knex.Transaction, orgId: string, userId: string): Promise<{ id: string; name: string }> {
  const user = await trx("users").where({ id: userId, org_id: orgId }).first("id", "name", "is_active");
  if (!user) throw new ItemRejected("the employee no longer exists");
  if (!user.is_active) throw new ItemRejected(`${user.name} was deactivated after the action was proposed`);
  return user;
}

const dateOnly = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString().slice(0, 10) : null);

// Each applier re-checks, as the organisation is now, what its tool checked when it proposed
// (workers/admin/tools/write-tools.ts): a change made in between fails the item with the reason.

const APPLIERS: Record<string, Applier> = {
  async assign_course(trx, orgId, target) {
    await activeUser(trx, orgId, target.user_id);
    const course = await trx("courses").where({ id: target.course_id, org_id: orgId }).first("id", "status");
    if (!course) throw new ItemRejected("the course no longer exists");
    if (course.status === "archived") throw new ItemRejected("the course was archived after the action was proposed");
    const existing = await trx("enrollments")
      .where({ org_id: orgId, user_id: target.user_id, course_id: target.course_id })
      .forUpdate()
      .first("id", "status", "deadline");
    const deadline: string | null = target.deadline ?? null;
    const today = new Date().toISOString().slice(0, 10);
    if (deadline && deadline < today) throw new ItemRejected(`the deadline ${deadline} has passed since the action was proposed`);
    const change = { targetType: "enrollment", targetId: `${target.user_id}:${target.course_id}` };
    if (!existing) {
      await trx("enrollments").insert({ org_id: orgId, user_id: target.user_id, course_id: target.course_id, status: "not_started", deadline });
      return { ...change, before: null, after: { status: "not_started", deadline } };
    }
    const before = { status: existing.status, deadline: dateOnly(existing.deadline) };
    if (existing.status === "completed" || !deadline || before.deadline === deadline) return { ...change, before, after: before };
    await trx("enrollments").where({ id: existing.id }).update({ deadline });
    return { ...change, before, after: { ...before, deadline } };
  },

  async verify_skill(trx, orgId, target) {
    await activeUser(trx, orgId, target.user_id);
    const skill = await trx("skills").where({ id: target.skill_id, org_id: orgId }).first("id");
    if (!skill) throw new ItemRejected("the skill no longer exists");
    const existing = await trx("user_skills").where({ org_id: orgId, user_id: target.user_id, skill_id: target.skill_id }).forUpdate().first("level");
    await trx("user_skills")
      .insert({ org_id: orgId, user_id: target.user_id, skill_id: target.skill_id, level: target.level, updated_at: trx.fn.now() })
      .onConflict(["user_id", "skill_id"])
      .merge(["level", "updated_at"]);
    return {
      targetType: "user_skill",
      targetId: `${target.user_id}:${target.skill_id}`,
      before: { level: existing?.level ?? null },
      after: { level: target.level },
    };
  },

  async deactivate_employee(trx, orgId, target, action) {
    const user = await trx("users").where({ id: target.user_id, org_id: orgId }).forUpdate().first("id", "name", "role", "is_active");
    if (!user) throw new ItemRejected("the employee no longer exists");
    if (user.id === action.user_id) throw new ItemRejected("an admin cannot deactivate their own account from the assistant");
    if (user.role !== "employee") throw new ItemRejected(`${user.name} is now an ${user.role}; admins are not deactivated from the assistant`);
    if (!user.is_active) throw new ItemRejected(`${user.name} was already deactivated after the action was proposed`);
    await trx("users").where({ id: user.id }).update({ is_active: false, deactivated_at: trx.fn.now() });
    return { targetType: "user", targetId: user.id, before: { is_active: true }, after: { is_active: false } };
  },

  async archive_course(trx, orgId, target) {
    if (target.kind === "enrollment") {
      const row = await trx("enrollments").where({ id: target.enrollment_id, org_id: orgId }).forUpdate().first("id", "status");
      if (!row) throw new ItemRejected("the enrollment no longer exists");
      if (row.status !== "completed") await trx("enrollments").where({ id: row.id }).update({ status: "completed", completed_at: trx.fn.now() });
      return { targetType: "enrollment", targetId: row.id, before: { status: row.status }, after: { status: "completed" } };
    }
    const course = await trx("courses").where({ id: target.course_id, org_id: orgId }).forUpdate().first("id", "status");
    if (!course) throw new ItemRejected("the course no longer exists");
    if (course.status === "archived") throw new ItemRejected("the course was already archived after the action was proposed");
    await trx("courses").where({ id: course.id }).update({ status: "archived", archived_at: trx.fn.now() });
    return { targetType: "course", targetId: course.id, before: { status: course.status }, after: { status: "archived" } };
  },
};

/**
 * Applies one item exactly once: `applied` the first time, `already` when a previous run did it.
 * Throws ItemRejected when the item cannot run; any other error is a fault worth retrying.
 */
export async function applyActionItem(db: Db, action: AdminActionRow, itemId: string): Promise<"applied" | "already"> {
  const applier = APPLIERS[action.tool];
  if (!applier) throw new ItemRejected(`unknown action tool ${action.tool}`);
  return db.transaction(async (trx) => {
    const item = await trx<ActionItemRow>("admin_action_items").where({ id: itemId, org_id: action.org_id, action_id: action.id }).forUpdate().first();
    if (!item) throw new ItemRejected("the item no longer exists");
    if (item.status === "done") return "already";
    const change = await applier(trx, action.org_id, item.target, action);
    await trx("audit_log")
      .insert({
        org_id: action.org_id,
        actor_id: action.user_id,
        confirmed_by: action.confirmed_by,
        // A resumed run's items name who resumed them (the first run's keep null).
        resumed_by: action.runs > 1 ? action.resumed_by : null,
        action: `admin_action.${action.tool}`,
        action_id: action.id,
        action_item_id: item.id,
        target_type: change.targetType,
        target_id: change.targetId,
        before: JSON.stringify(change.before),
        after: JSON.stringify(change.after),
        details: JSON.stringify({ label: item.label }),
      })
      .onConflict("action_item_id")
      .ignore();
    await trx("admin_action_items")
      .where({ id: item.id })
      .update({ status: "done", error: null, after: JSON.stringify(change.after), updated_at: trx.fn.now() });
    return "applied";
  });
}
