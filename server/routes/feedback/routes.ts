/**
 * Answer feedback: the owner of a session rates an assistant answer up or down, with an optional
 * comment; rating again replaces. Anyone else's message, or a question, is 404 (not 403), so ids
 * of other people's messages reveal nothing.
 */
import Router from "@koa/router";
import { listSessionFeedback, rateAnswer, type FeedbackRow } from "../../../db/queries/chat-feedback";
import { principalOf, requireAuth } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { parseInput } from "../../validation";
import { messageParams, postFeedbackBody, sessionFeedbackParams } from "./schema";

const present = (row: FeedbackRow) => ({
  message_id: row.message_id,
  rating: row.rating,
  comment: row.comment,
  rung: row.rung,
  updated_at: new Date(row.updated_at).toISOString(),
});

export function feedbackRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/chat" });
  router.use(requireAuth(deps));

  router.post("/messages/:id/feedback", async (ctx) => {
    const { id } = parseInput(messageParams, ctx.params, "params");
    const body = parseInput(postFeedbackBody, ctx.request.body ?? {}, "body");
    const comment = body.comment?.trim() || null;
    const row = await rateAnswer(deps.db, principalOf(ctx), { messageId: id, rating: body.rating, comment });
    if (!row) throw notFound("Answer");
    ctx.body = { feedback: present(row) };
  });

  router.get("/sessions/:id/feedback", async (ctx) => {
    const { id } = parseInput(sessionFeedbackParams, ctx.params, "params");
    ctx.body = { feedback: (await listSessionFeedback(deps.db, principalOf(ctx), id)).map(present) };
  });

  return router;
}
