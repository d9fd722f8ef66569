import { rateOwnAnswer } from "../../../commands/rate-answer";
/**
 * Answer feedback: the owner of a session rates an assistant answer up or down, with an optional
 * comment; rating again replaces. Anyone else's message, or a question, is 404 (not 403), so ids
 * of other people's messages reveal nothing.
 */
import { listSessionFeedback, type FeedbackRow } from "../../../db/queries/chat-feedback";
import { principalOf } from "../../auth/middleware";
import { defineRoute } from "../define-route";
import { feedbackResponse, messageParams, postFeedbackBody, sessionFeedbackParams, sessionFeedbackResponse } from "./schema";

const present = (row: FeedbackRow) => ({
  message_id: row.message_id,
  rating: row.rating,
  comment: row.comment,
  rung: row.rung,
  updated_at: new Date(row.updated_at).toISOString(),
});

export const feedbackRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/chat/messages/:id/feedback",
    tag: "chat",
    summary: "Rate one of your own answers up or down (rating again replaces)",
    description: "Stored with the answer's rung and sources. Questions and other people's messages are 404.",
    access: "bearer",
    params: messageParams,
    body: postFeedbackBody,
    responses: { 200: { description: "The stored rating.", schema: feedbackResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id }, body }, deps) => {
      const comment = body.comment?.trim() || null;
      const row = await rateOwnAnswer(deps, principalOf(ctx), { messageId: id, rating: body.rating, comment });
      ctx.body = { feedback: present(row) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/chat/sessions/:id/feedback",
    tag: "chat",
    summary: "Your ratings in one of your sessions",
    description: "Empty for a session that is not yours.",
    access: "bearer",
    params: sessionFeedbackParams,
    responses: { 200: { description: "The ratings.", schema: sessionFeedbackResponse } },
    handler: async (ctx, { params: { id } }, deps) => {
      ctx.body = { feedback: (await listSessionFeedback(deps.db, principalOf(ctx), id)).map(present) };
    },
  }),
];
