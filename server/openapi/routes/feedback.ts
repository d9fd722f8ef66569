/** Answer feedback: thumbs up or down on the caller's own answers. */
import { z } from "zod";
import { messageParams, postFeedbackBody, sessionFeedbackParams } from "../../routes/feedback/schema";
import { defineRoutes } from "../registry";

const feedback = z.strictObject({
  message_id: z.uuid(),
  rating: z.enum(["up", "down"]),
  comment: z.string().nullable(),
  rung: z.string().nullable().describe("The grounding rung the rated answer had (chunks, document, general)."),
  updated_at: z.iso.datetime({ offset: true }),
});

export const feedbackRoutes = defineRoutes([
  {
    method: "post",
    path: "/api/v1/chat/messages/:id/feedback",
    tag: "chat",
    summary: "Rate one of your own answers up or down (rating again replaces)",
    description: "Stored with the answer's rung and sources. Questions and other people's messages are 404.",
    access: "bearer",
    params: messageParams,
    body: postFeedbackBody,
    responses: { 200: { description: "The stored rating.", schema: z.strictObject({ feedback }) } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/chat/sessions/:id/feedback",
    tag: "chat",
    summary: "Your ratings in one of your sessions",
    description: "Empty for a session that is not yours.",
    access: "bearer",
    params: sessionFeedbackParams,
    responses: { 200: { description: "The ratings.", schema: z.strictObject({ feedback: z.array(feedback) }) } },
  },
]);
