/**
 * The contract between the admin assistant's write tools (workers/admin/tools/write-tools.ts),
 * which freeze each target of a proposal as an item, and the appliers that change the
 * organisation when the admin confirms (commands/apply-action-item.ts). One schema per write
 * tool: what an item's `target` holds. It lives here because both sides import it: workers may
 * import commands, and commands may not import workers.
 */
import { z } from "zod";

const id = z.string().min(1);
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const WRITE_TARGETS = {
  /** Enrol one employee (or move their deadline); an existing enrollment keeps its status. */
  assign_course: z.object({ user_id: id, course_id: id, deadline: day.nullable().default(null) }),
  /** Set one employee's verified level of one skill. */
  verify_skill: z.object({ user_id: id, skill_id: id, level: z.number().int().min(1).max(5) }),
  deactivate_employee: z.object({ user_id: id }),
  /** An archive is its open enrollments (marked completed) and then the course itself. */
  archive_course: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("enrollment"), enrollment_id: id }),
    z.object({ kind: z.literal("course"), course_id: id }),
  ]),
} as const;

export type WriteTool = keyof typeof WRITE_TARGETS;
export type WriteTarget<T extends WriteTool> = z.infer<(typeof WRITE_TARGETS)[T]>;

export function isWriteTool(name: string): name is WriteTool {
  return Object.hasOwn(WRITE_TARGETS, name);
}
