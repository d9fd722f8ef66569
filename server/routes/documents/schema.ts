/** Request shapes of the documents API. */
import { z } from "zod";
import { DOCUMENT_STATUSES } from "../../../lib/document-status";

const department = z
  .string({ error: "each department must be a string" })
  .trim()
  .min(1, "a department name must not be empty")
  .max(100, "a department name must be at most 100 characters");

/** Departments whose employees may read the document; null opens it to the whole org. */
const restrictedDepartments = z
  .array(department, { error: "restricted_departments must be a list of department names, or null" })
  .min(1, "restricted_departments must name at least one department; use null to open the document to the whole org")
  .max(50, "restricted_departments may name at most 50 departments")
  .transform((names) => [...new Set(names)]);

const restrictedCourseId = z.uuid({ error: "restricted_course_id must be a UUID, or null" });

/** Multipart fields are strings: a JSON array (`["Sales","Finance"]`) or a comma-separated list. */
function departmentList(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text === "") return undefined;
  if (text.startsWith("[")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return value;
    }
  }
  return text.split(",");
}

export const uploadFields = z.strictObject({
  title: z.string().trim().min(1).max(300).optional(),
  course_id: z.uuid({ error: "course_id must be a UUID" }).optional(),
  restricted_departments: z.preprocess(departmentList, restrictedDepartments.optional()),
  restricted_course_id: z.preprocess((value) => (value === "" ? undefined : value), restrictedCourseId.optional()),
});
export type UploadFields = z.infer<typeof uploadFields>;

/** PATCH /api/v1/documents/:id: change who may read the document; only the keys given change. */
export const patchDocumentBody = z
  .object({
    restricted_departments: restrictedDepartments.nullable().optional(),
    restricted_course_id: restrictedCourseId.nullable().optional(),
  })
  .strict()
  .refine(
    (body) => body.restricted_departments !== undefined || body.restricted_course_id !== undefined,
    "give restricted_departments and/or restricted_course_id",
  );

export const documentParams = z.object({ id: z.uuid({ error: "document id must be a UUID" }) });

export const listDocumentsQuery = z.object({
  status: z.enum(DOCUMENT_STATUSES).optional(),
});

export const deleteDocumentQuery = z.object({
  force: z.enum(["true", "false"]).optional(),
});
