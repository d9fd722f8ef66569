/** Request shapes of the documents API. */
import { z } from "zod";

export const uploadFields = z.object({
  title: z.string().trim().min(1).max(300).refine((value) => !value.includes("\u0000"), "title must not contain NUL characters").optional(),
  course_id: z.uuid({ error: "course_id must be a UUID" }).optional(),
});

export const documentParams = z.object({ id: z.uuid({ error: "document id must be a UUID" }) });

export const listDocumentsQuery = z.object({
  status: z.enum(["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED", "FAILED"]).optional(),
});

export const deleteDocumentQuery = z.object({
  force: z.enum(["true", "false"]).optional(),
});
