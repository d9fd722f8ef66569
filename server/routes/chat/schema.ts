/** Request shapes of the chat API; the only place their limits are written down. */
import { z } from "zod";

export const MAX_MESSAGE_CHARS = 10_000;

const messageText = z
  .string({ error: "message is required and must be a string" })
  .refine((value) => value.trim().length > 0, "message must not be empty")
  .refine((value) => value.length <= MAX_MESSAGE_CHARS, `message must be at most ${MAX_MESSAGE_CHARS} characters`)
  .refine((value) => !value.includes("\u0000"), "message must not contain NUL characters");

export const postChatBody = z.object({
  message: messageText,
  context: z
    .object({
      course_id: z.uuid().optional(),
      lesson_id: z.uuid().optional(),
      session_id: z.uuid().optional(),
    })
    .strict()
    .default({}),
});
export type PostChatBody = z.infer<typeof postChatBody>;

export const postAdminChatBody = z
  .object({
    message: messageText,
    session_id: z.uuid({ error: "session_id must be a UUID" }).optional(),
  })
  .strict();
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
