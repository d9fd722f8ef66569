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

export const sessionParams = z.object({ id: z.uuid({ error: "session id must be a UUID" }) });
