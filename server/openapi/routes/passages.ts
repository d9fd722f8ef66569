/** Citations that open their passage, and the original documents they come from. */
import { z } from "zod";
import { answerParams, documentParams, passageQuery } from "../../routes/passages/schema";
import { defineRoutes } from "../registry";

export const passageResponse = z.strictObject({
  index: z.number().int(),
  source_type: z.enum(["document_chunk", "document", "lesson"]),
  document_id: z.uuid().nullable().describe("Null for a lesson."),
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

export const passageRoutes = defineRoutes([
  {
    method: "get",
    path: "/api/v1/chat/messages/:id/passage",
    tag: "chat",
    summary: "The passage citation [index] of one of your answers points to",
    description:
      "Read again under the retrieval rule: a passage you may not read now, one that is gone (its document re-indexed or deleted), a progress source, or someone else's answer is 404.",
    access: "bearer",
    params: answerParams,
    query: passageQuery,
    responses: { 200: { description: "The passage.", schema: passageResponse } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/library/documents/:id/original",
    tag: "documents",
    summary: "The original document, for anyone who may read it",
    description:
      "The uploaded file (HTML and other active types as application/octet-stream), or the text of a document seeded without a file. 404 for a document the caller may not read.",
    access: "bearer",
    params: documentParams,
    responses: { 200: { description: "The file.", contentType: "application/octet-stream" } },
    errors: ["NOT_FOUND"],
  },
]);
