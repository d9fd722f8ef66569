/** Request and response shapes of answer feedback. */
import { z } from "zod";

export const MAX_FEEDBACK_COMMENT_CHARS = 1_000;

export const messageParams = z.object({ id: z.uuid({ error: "message id must be a UUID" }) });
export const sessionFeedbackParams = z.object({ id: z.uuid({ error: "session id must be a UUID" }) });

export const postFeedbackBody = z
  .object({
    rating: z.enum(["up", "down"], { error: 'rating must be "up" or "down"' }),
    comment: z
      .string({ error: "comment must be a string" })
      .max(MAX_FEEDBACK_COMMENT_CHARS, `comment must be at most ${MAX_FEEDBACK_COMMENT_CHARS} characters`)
      .optional(),
  })
  .strict();

const feedback = z.strictObject({
  message_id: z.uuid(),
  rating: z.enum(["up", "down"]),
  comment: z.string().nullable(),
  rung: z.string().nullable().describe("The grounding rung the rated answer had (chunks, document, general)."),
  updated_at: z.iso.datetime({ offset: true }),
});

export const feedbackResponse = z.strictObject({ feedback });
export const sessionFeedbackResponse = z.strictObject({ feedback: z.array(feedback) });
