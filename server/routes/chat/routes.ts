/** The chat API: start (idempotently) or cancel a tutor or admin assistant turn, list sessions and messages, delete a session. */
import Router from "@koa/router";
import { deleteOwnedSession, findOwnedSession, listOwnedSessions } from "../../../db/queries/chat-sessions";
import { isSessionMessage, listSessionMessagePage } from "../../../db/queries/chat-messages";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import { badRequest, forbidden, notFound } from "../../errors";
import { parseInput } from "../../validation";
import { RateLimiter } from "../../middleware/rate-limit";
import type { ServerDeps } from "../../deps";
import { idempotent, jsonFingerprint } from "../../middleware/idempotency";
import { readAllowanceAhead, requireAllowance } from "../allowance/gate";
import { cancelTurn } from "../../../commands/cancel-turn";
import { listMessagesQuery, listSessionsQuery, postAdminChatBody, postChatBody, sessionParams, turnParams } from "./schema";
import { startAdminTurn, startTutorTurn } from "./start-turn";

const ADMIN_TRANSCRIPTS = "Admin assistant conversations are for admins only";

export function chatRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/chat" });
  const limiter = new RateLimiter(deps.redis);
  router.use(requireAuth(deps));

  // A replayed Idempotency-Key costs no rate-limit slot: only a first run is admitted.
  const tutorOnce = idempotent(deps.redis, {
    scope: "chat",
    fingerprint: jsonFingerprint,
    admit: (ctx) =>
      limiter.consumeFor(principalOf(ctx), "tutor", {
        perUser: deps.config.RATE_LIMIT_TUTOR_PER_MINUTE,
        perOrganisation: deps.config.RATE_LIMIT_ORG_TUTOR_PER_MINUTE,
      }),
  });
  const adminOnce = idempotent(deps.redis, {
    scope: "chat-admin",
    fingerprint: jsonFingerprint,
    admit: (ctx) =>
      limiter.consumeFor(principalOf(ctx), "admin", {
        perUser: deps.config.RATE_LIMIT_ADMIN_PER_MINUTE,
        perOrganisation: deps.config.RATE_LIMIT_ORG_ADMIN_PER_MINUTE,
      }),
  });

  // After the idempotency check: a replay of an accepted turn is answered, a new turn is checked.
  const allowance = requireAllowance(deps);
  // The allowance read starts before those checks and runs alongside them (only a read: a refused
  // request stores and queues nothing); it is awaited where it was, so refusals keep their order.
  const allowanceAhead = readAllowanceAhead(deps);

  router.post("/", allowanceAhead, tutorOnce, allowance, async (ctx) => {
    const principal = principalOf(ctx);
    const body = parseInput(postChatBody, ctx.request.body ?? {}, "body");
    const started = await startTutorTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
    ctx.status = 202;
    ctx.body = started;
  });

  router.post("/admin", requireRole("admin"), allowanceAhead, adminOnce, allowance, async (ctx) => {
    const principal = principalOf(ctx);
    const body = parseInput(postAdminChatBody, ctx.request.body ?? {}, "body");
    const started = await startAdminTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
    ctx.status = 202;
    ctx.body = started;
  });

  // The owner's turn only (admin assistant turns too); 202 while it runs, 409 once it has ended.
  router.post("/turns/:id/cancel", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(turnParams, ctx.params, "params");
    ctx.status = 202;
    ctx.body = await cancelTurn(deps, { orgId: principal.orgId, userId: principal.userId }, id);
  });

  router.get("/sessions", async (ctx) => {
    const principal = principalOf(ctx);
    const query = parseInput(listSessionsQuery, ctx.query, "query");
    // Roles read as the database has them now (requireAuth): a demoted admin loses the admin transcripts, as on the socket.
    if (query.agent_type === "admin" && principal.role !== "admin") throw forbidden(ADMIN_TRANSCRIPTS);
    const sessions = await listOwnedSessions(deps.db, { orgId: principal.orgId, userId: principal.userId }, query.agent_type);
    const readable = principal.role === "admin" ? sessions : sessions.filter((s) => s.agent_type !== "admin");
    ctx.body = {
      sessions: readable.map((s) => ({
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

  // Newest page first (the page a chat window opens on), oldest first within the page;
  // `next_before` fetches the page before it and is null at the start of the session.
  router.get("/sessions/:id/messages", async (ctx) => {
    const principal = principalOf(ctx);
    const { id } = parseInput(sessionParams, ctx.params, "params");
    const { before, limit } = parseInput(listMessagesQuery, ctx.query, "query");
    const session = await findOwnedSession(deps.db, { orgId: principal.orgId, userId: principal.userId }, id);
    if (!session) throw notFound("Chat session");
    if (session.agent_type === "admin" && principal.role !== "admin") throw forbidden(ADMIN_TRANSCRIPTS);
    if (before && !(await isSessionMessage(deps.db, principal.orgId, id, before))) throw badRequest("before must be the id of a message in this session");
    const page = await listSessionMessagePage(deps.db, principal.orgId, id, { before, limit });
    ctx.body = {
      session: { id: session.id, agent_type: session.agent_type, title: session.title, summary: session.summary },
      messages: page.messages.map((m) => ({
        id: m.id,
        turn_id: m.turn_id,
        role: m.role,
        content: m.content,
        status: m.status,
        metadata: m.metadata,
        created_at: m.created_at,
      })),
      has_more: page.nextBefore !== null,
      next_before: page.nextBefore,
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
