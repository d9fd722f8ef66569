/**
 * Applying one frozen item of a confirmed admin action: the change each write tool makes when
 * the admin confirms, and what it re-checks first. Each applier re-checks, as the organisation is
 * now, what its tool checked when it proposed (workers/admin/tools/write-tools.ts): a change made
 * in between fails the item with the reason (ItemRejected). The table is typed by write tool, so
 * a write tool without an applier does not compile, and each applier reads its own target type.
 */
import type { Db } from "../db/knex";
import { recordAudit } from "../db/queries/audit-log";
import {
  archiveCourse,
  completeEnrollment,
  courseForItem,
  deactivateUser,
  insertEnrollment,
  lockEnrollment,
  lockActionItem,
  lockEnrollmentOf,
  lockSkillLevel,
  markItemDone,
  setEnrollmentDeadline,
  setSkillLevel,
  skillExists,
  stillRunning,
  userForItem,
  type ItemChange,
  type ItemOutcome,
  type ItemTransaction,
} from "../db/queries/admin-action-items";
import type { Redis } from "ioredis";
import type { AdminActionRow } from "../db/queries/admin-actions";
import { ItemRejected } from "../lib/refusal";
import { cutSocketsOnCommit } from "./cut-sockets";
import { withTransaction } from "./transaction";
import { isWriteTool, WRITE_TARGETS, type WriteTarget, type WriteTool } from "./write-targets";

type Applier<T extends WriteTool> = (trx: ItemTransaction, orgId: string, target: WriteTarget<T>, action: AdminActionRow) => Promise<ItemChange>;

async function activeUser(trx: ItemTransaction, orgId: string, userId: string): Promise<{ id: string; name: string }> {
  const user = await userForItem(trx, orgId, userId);
  if (!user) throw new ItemRejected("the employee no longer exists");
  if (!user.is_active) throw new ItemRejected(`${user.name} was deactivated after the action was proposed`);
  return user;
}

const dateOnly = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString().slice(0, 10) : null);

export const APPLIERS = {
  async assign_course(trx, orgId, target) {
    await activeUser(trx, orgId, target.user_id);
    const course = await courseForItem(trx, orgId, target.course_id);
    if (!course) throw new ItemRejected("the course no longer exists");
    if (course.status === "archived") throw new ItemRejected("the course was archived after the action was proposed");
    const existing = await lockEnrollmentOf(trx, orgId, target.user_id, target.course_id);
    const deadline = target.deadline;
    const today = new Date().toISOString().slice(0, 10);
    if (deadline && deadline < today) throw new ItemRejected(`the deadline ${deadline} has passed since the action was proposed`);
    const change = { targetType: "enrollment", targetId: `${target.user_id}:${target.course_id}` };
    if (!existing) {
      await insertEnrollment(trx, { orgId, userId: target.user_id, courseId: target.course_id, deadline });
      return { ...change, before: null, after: { status: "not_started", deadline } };
    }
    const before = { status: existing.status, deadline: dateOnly(existing.deadline) };
    if (existing.status === "completed" || !deadline || before.deadline === deadline) return { ...change, before, after: before };
    await setEnrollmentDeadline(trx, existing.id, deadline);
    return { ...change, before, after: { ...before, deadline } };
  },

  async verify_skill(trx, orgId, target) {
    await activeUser(trx, orgId, target.user_id);
    if (!(await skillExists(trx, orgId, target.skill_id))) throw new ItemRejected("the skill no longer exists");
    const level = await lockSkillLevel(trx, orgId, target.user_id, target.skill_id);
    await setSkillLevel(trx, { orgId, userId: target.user_id, skillId: target.skill_id, level: target.level });
    return { targetType: "user_skill", targetId: `${target.user_id}:${target.skill_id}`, before: { level }, after: { level: target.level } };
  },

  async deactivate_employee(trx, orgId, target, action) {
    const user = await userForItem(trx, orgId, target.user_id, true);
    if (!user) throw new ItemRejected("the employee no longer exists");
    if (user.id === action.user_id) throw new ItemRejected("an admin cannot deactivate their own account from the assistant");
    if (user.role !== "employee") throw new ItemRejected(`${user.name} is now an ${user.role}; admins are not deactivated from the assistant`);
    if (!user.is_active) throw new ItemRejected(`${user.name} was already deactivated after the action was proposed`);
    await deactivateUser(trx, orgId, user.id);
    return { targetType: "user", targetId: user.id, before: { is_active: true }, after: { is_active: false } };
  },

  async archive_course(trx, orgId, target) {
    if (target.kind === "enrollment") {
      const row = await lockEnrollment(trx, orgId, target.enrollment_id);
      if (!row) throw new ItemRejected("the enrollment no longer exists");
      if (row.status !== "completed") await completeEnrollment(trx, row.id);
      return { targetType: "enrollment", targetId: row.id, before: { status: row.status }, after: { status: "completed" } };
    }
    const course = await courseForItem(trx, orgId, target.course_id, true);
    if (!course) throw new ItemRejected("the course no longer exists");
    if (course.status === "archived") throw new ItemRejected("the course was already archived after the action was proposed");
    await archiveCourse(trx, course.id);
    return { targetType: "course", targetId: course.id, before: { status: course.status }, after: { status: "archived" } };
  },
} satisfies { [T in WriteTool]: Applier<T> };

/** The applier of `tool`, reading the item's stored target through that tool's schema. */
function applierFor<T extends WriteTool>(tool: T, action: AdminActionRow): (trx: ItemTransaction, target: Record<string, unknown>) => Promise<ItemChange> {
  const applier = APPLIERS[tool] as Applier<T>;
  return (trx, stored) => {
    const target = WRITE_TARGETS[tool].safeParse(stored);
    // A target the proposing tool did not write: refuse the item with a reason, never guess.
    if (!target.success) throw new ItemRejected(`the frozen item does not hold a ${tool} target`);
    return applier(trx, action.org_id, target.data as WriteTarget<T>, action);
  };
}

/**
 * Applies one item exactly once: `applied` the first time, `already` when a previous run did it,
 * `stopped` (with `whileRunning`) when the action was stopped before the item started.
 * Throws ItemRejected when the item cannot run; any other error is a fault worth retrying.
 */
export async function applyActionItem(
  db: Db,
  action: AdminActionRow,
  itemId: string,
  options: { whileRunning?: boolean; redis?: Redis } = {},
): Promise<ItemOutcome> {
  if (!isWriteTool(action.tool)) throw new ItemRejected(`unknown action tool ${action.tool}`);
  const apply = applierFor(action.tool, action);
  return withTransaction({ db }, async (trx) => {
    // The action's row before the item's, the order a stop and a resume lock them in.
    if (options.whileRunning && !(await stillRunning(trx, action.org_id, action.id))) return "stopped";
    const item = await lockActionItem(trx, action, itemId);
    if (!item) throw new ItemRejected("the item no longer exists");
    if (item.status === "done") return "already";
    const change = await apply(trx, item.target);
    // A person the item deactivated loses their open sockets on every node once it commits.
    if (options.redis && change.targetType === "user" && (change.after as { is_active?: boolean }).is_active === false)
      cutSocketsOnCommit(trx, { redis: options.redis }, change.targetId);
    await recordAudit(trx, {
      name: "admin_action.item_applied",
      orgId: action.org_id,
      actor: { type: "person", id: action.user_id },
      target: { type: change.targetType, id: change.targetId },
      before: change.before,
      after: change.after,
      details: { label: item.label, tool: action.tool },
      // A resumed run's items name who resumed them (the first run's keep null).
      adminAction: { actionId: action.id, itemId: item.id, confirmedBy: action.confirmed_by, resumedBy: action.runs > 1 ? action.resumed_by : null },
    });
    await markItemDone(trx, item.id, change.after);
    return "applied";
  });
}
