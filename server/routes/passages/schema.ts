/** Path and response shapes of cited passages and original documents. */
import { z } from "zod";

export const answerParams = z.object({ id: z.uuid({ error: "message id must be a UUID" }) });

export const passageQuery = z.object({
  index: z.coerce
    .number({ error: "index must be a number" })
    .int("index must be a whole number")
    .min(1, "index starts at 1")
    .max(1000, "index must be at most 1000")
    .describe("The citation number, as in [n]."),
});

export const documentParams = z.object({ id: z.uuid({ error: "document id must be a UUID" }) });

export const passageResponse = z.strictObject({
  index: z.number().int(),
  source_type: z.enum(["document_chunk", "document", "lesson", "attachment"]),
  document_id: z.uuid().nullable().describe("Null for a lesson or an attached file."),
  title: z.string().describe("The document's title (a lesson: its course's)."),
  heading: z.string().nullable().describe("The heading path of the passage (a lesson: module › lesson)."),
  page_start: z.number().int().nullable(),
  page_end: z.number().int().nullable(),
  text: z.string().describe("The passage the tutor was given; a whole document: its first 8,000 characters."),
  truncated: z.boolean(),
  original_url: z.string().nullable().describe("GET it with the same token for the original document."),
});

/** What the chat page reads (imported as a type only). */
export type PassageBody = z.infer<typeof passageResponse>;
