/** Request shapes of the chat API; the only place their limits are written down. */
import { z } from "zod";
import { ATTACHMENTS_PER_MESSAGE } from "../../../lib/chat-attachment-limits";

export const MAX_MESSAGE_CHARS = 10_000;

const messageText = z
  .string({ error: "message is required and must be a string" })
  .refine((value) => value.trim().length > 0, "message must not be empty")
  .refine((value) => value.length <= MAX_MESSAGE_CHARS, `message must be at most ${MAX_MESSAGE_CHARS} characters`);

/** The session a turn continues; omitted, the message starts a new one. The same field on both chat endpoints. */
const sessionId = z
  .uuid({ error: "session_id must be a UUID" })
  .optional()
  .describe("Continue this session (one of your own, of this endpoint's kind); omit to start a new one.");

export const postChatBody = z
  .strictObject({
    message: messageText,
    session_id: sessionId,
    attachment_ids: z
      .array(z.uuid({ error: "each attachment id must be a UUID" }))
      .max(ATTACHMENTS_PER_MESSAGE, `attachment_ids may name at most ${ATTACHMENTS_PER_MESSAGE} files`)
      .optional()
      .describe("Files attached to this session (POST /api/v1/chat/attachments) that go with the question; each must be `ready`."),
    context: z
      .strictObject({
        course_id: z.uuid({ error: "context.course_id must be a UUID" }).optional(),
        lesson_id: z.uuid({ error: "context.lesson_id must be a UUID" }).optional(),
        // The tutor's first form, kept so older clients keep their sessions.
        session_id: z
          .uuid({ error: "context.session_id must be a UUID" })
          .optional()
          .meta({ deprecated: true, description: "Deprecated: send the top-level session_id instead (same meaning)." }),
      })
      .default({}),
  })
  .refine((body) => !body.session_id || !body.context.session_id || body.session_id === body.context.session_id, {
    message: "session_id and context.session_id name different sessions; send only session_id",
    path: ["session_id"],
  });
export type PostChatBody = z.infer<typeof postChatBody>;

/** The session a tutor request continues, whichever of its two spellings carried it. */
export const tutorSessionOf = (body: PostChatBody): string | undefined => body.session_id ?? body.context.session_id;

export const postAdminChatBody = z.strictObject({
  message: messageText,
  session_id: sessionId,
});
export type PostAdminChatBody = z.infer<typeof postAdminChatBody>;

export const listSessionsQuery = z.object({
  agent_type: z.enum(["tutor", "admin"]).optional(),
});

/** History pages: newest first across pages, oldest first within one. */
export const DEFAULT_MESSAGES_PAGE = 50;
export const MAX_MESSAGES_PAGE = 200;

export const listMessagesQuery = z.object({
  before: z.uuid({ error: "before must be a message id (the next_before of the previous page)" }).optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(MAX_MESSAGES_PAGE, `limit must be at most ${MAX_MESSAGES_PAGE}`)
    .default(DEFAULT_MESSAGES_PAGE),
});

export const sessionParams = z.object({ id: z.uuid({ error: "session id must be a UUID" }) });
export const turnParams = z.object({ id: z.uuid({ error: "turn id must be a UUID" }) });
