/** Request and response shapes of chat attachments: files an employee attaches to a tutor conversation. */
import { z } from "zod";

export const attachFields = z.strictObject({
  session_id: z
    .uuid({ error: "session_id must be a UUID" })
    .optional()
    .describe("The tutor conversation (one of your own); omit to start a new one, named after the file."),
});

export const sessionParams = z.object({ id: z.uuid({ error: "session id must be a UUID" }) });

export const attachmentParams = z.object({ id: z.uuid({ error: "attachment id must be a UUID" }) });

export const attachmentResponse = z.strictObject({
  id: z.uuid(),
  session_id: z.uuid(),
  message_id: z.uuid().nullable().describe("The question it was sent with; null while it waits to be sent."),
  filename: z.string(),
  format: z.string(),
  size_bytes: z.number().int(),
  status: z.enum(["processing", "ready", "failed"]),
  error_code: z.string().nullable().describe("Why it failed: the reading's code (EXTRACTION_FAILED, EXTRACTION_TIMEOUT, OCR_UNAVAILABLE, …)."),
  error: z.string().nullable(),
  created_at: z.iso.datetime({ offset: true }).or(z.date()),
});

export const attachmentsResponse = z.strictObject({ attachments: z.array(attachmentResponse) });
