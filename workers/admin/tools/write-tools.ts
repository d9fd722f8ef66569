/**
 * The four write tools. None of them writes: each resolves its targets inside the caller's
 * organisation, freezes them as the items of a pending action and returns a preview. The change
 * happens only when the admin confirms (`workers/admin/execute-action.handler.ts`).
 */
import { z } from "zod";
import type { WriteTool } from "../../../commands/write-targets";
import { enrollmentsOfPeople, openEnrollmentsOfCourse } from "../../../db/queries/admin-courses";
import { activePeopleInDepartment, findPeopleByIds, listDepartments, skillLevelOf, type PersonRef } from "../../../db/queries/admin-people";
import { fewNames, shownName, type FrozenItem, type ProposedAction } from "./proposal";
import { resolveCourse, resolvePerson, resolveSkill } from "./resolve";
import { defineTool, idArgument, toolError, type ToolContext, type ToolResult } from "./tool";

/** Above this many targets an action is refused: split it, or it is probably not what was meant. */
export const MAX_ACTION_ITEMS = 2_000;
const SHOWN_ITEMS = 10;

/** `details`: what the model is told besides the stored proposal (never part of the line the admin confirms). */
async function propose(context: ToolContext, action: ProposedAction, details: Record<string, unknown> = {}): Promise<ToolResult> {
  if (action.items.length === 0) return toolError("Nothing to do: no target is left after resolving the request.");
  if (action.items.length > MAX_ACTION_ITEMS)
    return toolError(`That would touch ${action.items.length} records; the limit for one action is ${MAX_ACTION_ITEMS}. Narrow it down.`);
  const stored = await context.propose(action);
  const shown = { action_id: stored.actionId, preview: stored.preview, items_total: stored.total, items: stored.labels.slice(0, SHOWN_ITEMS), ...details };
  if (stored.status !== "pending")
    return { status: stored.status, ...shown, instruction: `This turn's proposal is already ${stored.status}; do not propose it again or say it is pending.` };
  return {
    status: "pending_confirmation",
    ...shown,
    expires_at: stored.expiresAt,
    instruction: "Nothing has been changed yet. Show the admin this preview and ask them to confirm (yes / sí) or cancel (no). Do not say it is done.",
  };
}

const deadlineSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "use the form YYYY-MM-DD")
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), "not a real date")
  .describe("Deadline as YYYY-MM-DD (compute relative dates from today's date in the instructions)");

const label = (person: PersonRef) => `${shownName(person.name)}${person.department ? ` (${shownName(person.department)})` : ""}`;

export const assignCourseTool = defineTool({
  name: "assign_course" satisfies WriteTool,
  description:
    "Propose enrolling employees in a course, optionally with a deadline. Targets by employee ids, employee names, or a whole department (all its active employees). Creates a pending action the admin must confirm; nothing changes before that.",
  kind: "write",
  schema: z.object({
    course_id: idArgument("a course").optional(),
    course_title: z.string().max(200).optional(),
    employee_ids: z.array(idArgument("an employee")).max(MAX_ACTION_ITEMS).optional(),
    employee_names: z.array(z.string().max(100)).max(100).optional(),
    department: z.string().max(100).optional().describe("Every active employee of this department"),
    deadline: deadlineSchema.optional(),
  }),
  async run(context, args) {
    const course = await resolveCourse(context, { id: args.course_id, title: args.course_title });
    if (!course.ok) return course.result;
    if (course.value.status === "archived") return toolError(`"${course.value.title}" is archived; it cannot be assigned.`);
    if (args.deadline && args.deadline < context.today) return toolError(`The deadline ${args.deadline} is in the past (today is ${context.today}).`);
    if (!args.employee_ids?.length && !args.employee_names?.length && !args.department)
      return toolError("Say who: employee_ids, employee_names or department.");

    const people = new Map<string, PersonRef>();
    const notFound: string[] = [];
    // The department as stored (the model's spelling may differ in case or accents): the proposal line shows only stored names.
    let department: string | null = null;
    const inactive: string[] = [];
    const add = (person: PersonRef) => (person.is_active ? people.set(person.id, person) : inactive.push(person.name));
    if (args.employee_ids?.length) {
      const found = await findPeopleByIds(context.db, context.orgId, args.employee_ids);
      found.forEach(add);
      notFound.push(...args.employee_ids.filter((id) => !found.some((p) => p.id === id)));
    }
    for (const name of args.employee_names ?? []) {
      const person = await resolvePerson(context, { name });
      if (!person.ok) {
        if (person.result.status === "needs_clarification") return person.result;
        notFound.push(name);
      } else add(person.value);
    }
    if (args.department) {
      const members = await activePeopleInDepartment(context.db, context.orgId, args.department);
      if (members.length === 0)
        return toolError(`No active employees in a department called "${args.department}".`, {
          known_departments: await listDepartments(context.db, context.orgId),
        });
      members.forEach(add);
      department = members[0]!.department;
    }
    if (notFound.length > 0 && people.size === 0) return toolError(`No employee found for: ${notFound.join(", ")}.`);

    const targets = [...people.values()].sort((a, b) => a.name.localeCompare(b.name));
    const existing = new Map(
      (
        await enrollmentsOfPeople(
          context.db,
          context.orgId,
          course.value.id,
          targets.map((p) => p.id),
        )
      ).map((e) => [e.user_id, e]),
    );
    const deadline = args.deadline ?? null;
    const counts = { enrol: 0, deadline: 0, unchanged: 0 };
    const items: FrozenItem<"assign_course">[] = targets.map((person) => {
      const current = existing.get(person.id);
      const target = { user_id: person.id, course_id: course.value.id, deadline };
      if (!current) {
        counts.enrol++;
        return {
          target,
          label: `${label(person)}: enrol${deadline ? `, deadline ${deadline}` : ""}`,
          before: null,
          after: { status: "not_started", deadline },
        };
      }
      const before = { status: current.status, deadline: current.deadline ? new Date(current.deadline).toISOString().slice(0, 10) : null };
      if (current.status === "completed" || !deadline || before.deadline === deadline) {
        counts.unchanged++;
        return { target, label: `${label(person)}: already enrolled (${current.status}), unchanged`, before, after: before };
      }
      counts.deadline++;
      return {
        target,
        label: `${label(person)}: already enrolled (${current.status}), deadline ${before.deadline ?? "none"} → ${deadline}`,
        before,
        after: { ...before, deadline },
      };
    });
    const who = department ? `everyone active in ${shownName(department)}` : `${items.length} employee${items.length === 1 ? "" : "s"}`;
    // Only stored names and counts: the names and ids the model sent that matched nobody are told to the model, not put in the line.
    const preview =
      `Assign "${shownName(course.value.title)}" to ${who} (${items.length})${deadline ? ` with deadline ${deadline}` : ""}: ` +
      `${counts.enrol} new enrollment${counts.enrol === 1 ? "" : "s"}, ${counts.deadline} deadline change${counts.deadline === 1 ? "" : "s"}, ${counts.unchanged} unchanged.` +
      (inactive.length ? ` Skipped (deactivated): ${fewNames(inactive)}.` : "") +
      (notFound.length ? ` Not found: ${notFound.length} of the names or ids asked for.` : "");
    return propose(context, { tool: "assign_course", args, preview, items }, notFound.length ? { not_found: notFound.slice(0, 20) } : {});
  },
});

export const verifySkillTool = defineTool({
  name: "verify_skill" satisfies WriteTool,
  description: "Propose setting an employee's verified level (1-5) of a skill, overriding the assessed level. Pending until the admin confirms.",
  kind: "write",
  schema: z.object({
    employee_id: idArgument("an employee").optional(),
    employee_name: z.string().max(100).optional(),
    skill_name: z.string().min(1).max(100),
    level: z.number().int().min(1).max(5),
  }),
  async run(context, args) {
    const person = await resolvePerson(context, { id: args.employee_id, name: args.employee_name });
    if (!person.ok) return person.result;
    if (!person.value.is_active) return toolError(`${person.value.name} is deactivated.`);
    const skill = await resolveSkill(context, args.skill_name);
    if (!skill.ok) return skill.result;
    const current = await skillLevelOf(context.db, context.orgId, person.value.id, skill.value.id);
    const item: FrozenItem<"verify_skill"> = {
      target: { user_id: person.value.id, skill_id: skill.value.id, level: args.level },
      label: `${label(person.value)}: ${shownName(skill.value.name)} ${current ?? "none"} → ${args.level}`,
      before: { level: current },
      after: { level: args.level },
    };
    return propose(context, {
      tool: "verify_skill",
      args,
      preview: `Set ${shownName(person.value.name)}'s "${shownName(skill.value.name)}" level from ${current ?? "none"} to ${args.level}.`,
      items: [item],
    });
  },
});

export const deactivateEmployeeTool = defineTool({
  name: "deactivate_employee" satisfies WriteTool,
  description: "Propose deactivating an employee account: they can no longer sign in; their data is kept. Pending until the admin confirms.",
  kind: "write",
  schema: z.object({ employee_id: idArgument("an employee").optional(), employee_name: z.string().max(100).optional() }),
  async run(context, args) {
    const person = await resolvePerson(context, { id: args.employee_id, name: args.employee_name });
    if (!person.ok) return person.result;
    if (person.value.id === context.userId) return toolError("You cannot deactivate your own account from the assistant.");
    if (person.value.role !== "employee") return toolError(`${person.value.name} is an admin; admins are not deactivated from the assistant.`);
    if (!person.value.is_active) return toolError(`${person.value.name} is already deactivated.`);
    const item: FrozenItem<"deactivate_employee"> = {
      target: { user_id: person.value.id },
      label: `${label(person.value)}: deactivate`,
      before: { is_active: true },
      after: { is_active: false },
    };
    return propose(context, {
      tool: "deactivate_employee",
      args,
      preview: `Deactivate ${shownName(person.value.name)} (${shownName(person.value.email)}). Their data is kept.`,
      items: [item],
    });
  },
});

export const archiveCourseTool = defineTool({
  name: "archive_course" satisfies WriteTool,
  description: "Propose archiving a course; its unfinished enrollments are marked completed. Pending until the admin confirms.",
  kind: "write",
  schema: z.object({ course_id: idArgument("a course").optional(), course_title: z.string().max(200).optional() }),
  async run(context, args) {
    const course = await resolveCourse(context, { id: args.course_id, title: args.course_title });
    if (!course.ok) return course.result;
    if (course.value.status === "archived") return toolError(`"${course.value.title}" is already archived.`);
    const open = await openEnrollmentsOfCourse(context.db, context.orgId, course.value.id);
    const items: FrozenItem<"archive_course">[] = [
      ...open.map((e) => ({
        target: { kind: "enrollment" as const, enrollment_id: e.id },
        label: `${shownName(e.name)}: enrollment ${e.status} → completed`,
        before: { status: e.status },
        after: { status: "completed" },
      })),
      {
        target: { kind: "course" as const, course_id: course.value.id },
        label: `"${shownName(course.value.title)}": ${course.value.status} → archived`,
        before: { status: course.value.status },
        after: { status: "archived" },
      },
    ];
    return propose(context, {
      tool: "archive_course",
      args,
      preview: `Archive "${shownName(course.value.title)}" and mark its ${open.length} unfinished enrollment${open.length === 1 ? "" : "s"} completed.`,
      items,
    });
  },
});

export const WRITE_TOOLS = [assignCourseTool, verifySkillTool, deactivateEmployeeTool, archiveCourseTool] as const;
