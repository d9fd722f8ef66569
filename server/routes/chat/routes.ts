/** The chat API: start a tutor or admin assistant turn, list sessions and messages, delete a session. */
import Router from "@koa/router";
import { deleteOwnedSession, findOwnedSession, listOwnedSessions } from "../../../db/queries/chat-sessions";
import { listSessionMessages } from "../../../db/queries/chat-messages";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import { notFound } from "../../errors";
import { parseInput } from "../../validation";
import { RateLimiter } from "../../middleware/rate-limit";
import type { ServerDeps } from "../../deps";
import { listSessionsQuery, postAdminChatBody, postChatBody, sessionParams } from "./schema";
import { startAdminTurn, startTutorTurn } from "./start-turn";

export function chatRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/chat" });
  const limiter = new RateLimiter(deps.redis);
  router.use(requireAuth(deps));

  router.post("/", async (ctx) => {
    const principal = principalOf(ctx);
    await limiter.consume(principal.userId, { bucket: "tutor", limit: deps.config.RATE_LIMIT_TUTOR_PER_MINUTE, windowMs: 60_000 });
    const body = parseInput(postChatBody, ctx.request.body ?? {}, "body");
    const started = await startTutorTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
    ctx.status = 202;
    ctx.body = started;
  });

  router.post("/admin", requireRole("admin"), async (ctx) => {
    const principal = principalOf(ctx);
    await limiter.consume(principal.userId, { bucket: "admin", limit: deps.config.RATE_LIMIT_ADMIN_PER_MINUTE, windowMs: 60_000 });
    const body = parseInput(postAdminChatBody, ctx.request.body ?? {}, "body");
    const started = await startAdminTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
    ctx.status = 202;
    ctx.body = started;
  });

  router.get("/sessions", async (ctx) => {
    const principal = principalOf(ctx);
    const query = parseInput(listSessionsQuery, ctx.query, "query");
    const sessions = await listOwnedSessions(deps.db, { orgId: principal.orgId, userId: principal.userId }, query.agent_type);
    ctx.body = {
      sessions: sessions.map((s) => ({
        id: s.id,
        agent_type: s.agent_type,
        title: s.title,
        is_active: s.is_active,
        context: s.context,
        created_at: s.created_at,
        updated_at: s.updated_at,
      })),
    };
  });

  router.get("/sessions/:id/messages", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(sessionParams, ctx.params, "params");
    const session = await findOwnedSession(deps.db, { orgId: principal.orgId, userId: principal.userId }, id);
    if (!session) throw notFound("Chat session");
    const messages = await listSessionMessages(deps.db, principal.orgId, id);
    ctx.body = {
      session: { id: session.id, agent_type: session.agent_type, title: session.title, summary: session.summary },
      messages: messages.map((m) => ({ id: m.id, turn_id: m.turn_id, role: m.role, content: m.content, status: m.status, metadata: m.metadata, created_at: m.created_at })),
    };
  });

  router.delete("/sessions/:id", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(sessionParams, ctx.params, "params");
    const deleted = await deleteOwnedSession(deps.db, { orgId: principal.orgId, userId: principal.userId }, id);
    if (!deleted) throw notFound("Chat session");
    await deps.events.forgetSession(id);
    ctx.status = 204;
  });

  return router;
}
