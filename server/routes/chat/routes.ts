import { deleteChatSession } from "../../../commands/delete-chat-session";
/** The chat API: start (idempotently) or cancel a tutor or admin assistant turn, list sessions and messages, delete a session. */
import { listOwnedSessions } from "../../../db/queries/chat-sessions";
import { principalOf } from "../../auth/middleware";
import { forbidden } from "../../errors";
import { RateLimiter } from "../../middleware/rate-limit";
import type { ServerDeps } from "../../deps";
import { idempotent, jsonFingerprint } from "../../middleware/idempotency";
import { cancelTurnResponse, messagesResponse, sessionsResponse, startedTurnResponse } from "../../openapi/responses";
import { readAllowanceAhead, requireAllowance } from "../allowance/gate";
import { cancelTurn } from "../../../commands/cancel-turn";
import { defineRoute } from "../define-route";
import { listMessagesQuery, listSessionsQuery, postAdminChatBody, postChatBody, sessionParams, turnParams } from "./schema";
import { startAdminTurn, startTutorTurn } from "./start-turn";
import { ADMIN_TRANSCRIPTS, sessionHistoryPage } from "./history";
import { turnLimitsOf } from "../../middleware/organisation-limits";

/**
 * A replayed Idempotency-Key costs no rate-limit slot: only a first run is admitted; the
 * allowance is checked after it (a replay of an accepted turn is answered, a new turn is checked).
 */
function onceWithinLimits(deps: ServerDeps, agent: "tutor" | "admin") {
  const limiter = new RateLimiter(deps.redis);
  const once = idempotent(deps.redis, {
    scope: agent === "tutor" ? "chat" : "chat-admin",
    fingerprint: jsonFingerprint,
    admit: async (ctx) => {
      const principal = principalOf(ctx);
      return limiter.consumeFor(principal, agent, await turnLimitsOf(deps, principal.orgId, agent));
    },
  });
  return [once, requireAllowance(deps)];
}

export const chatRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/chat",
    tag: "chat",
    summary: "Start a tutor turn; the answer streams over Socket.IO",
    description: "Stores the message, queues the turn and answers 202 at once. If the queue refuses it, nothing is kept (503 QUEUE_UNAVAILABLE).",
    access: "bearer",
    body: postChatBody,
    idempotent: true,
    rateLimited: true,
    responses: { 202: { description: "Accepted: join the session's socket room to follow the turn.", schema: startedTurnResponse } },
    errors: [
      "AI_ALLOWANCE_EXHAUSTED",
      "COURSE_NOT_AVAILABLE",
      "NOT_FOUND",
      "ATTACHMENT_FAILED",
      "ATTACHMENT_PROCESSING",
      "ATTACHMENT_ALREADY_SENT",
      "ATTACHMENT_LIMIT",
      "QUEUE_UNAVAILABLE",
    ],
    // The reads a new turn needs start before the checks and run alongside them (only reads: a
    // refused request stores and queues nothing); each is awaited where it was, so refusals keep their order.
    use: (deps) => [readAllowanceAhead(deps), ...onceWithinLimits(deps, "tutor")],
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      const started = await startTutorTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
      ctx.status = 202;
      ctx.body = started;
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/chat/admin",
    tag: "chat",
    summary: "Start an admin assistant turn",
    access: "admin",
    body: postAdminChatBody,
    idempotent: true,
    rateLimited: true,
    responses: { 202: { description: "Accepted: the turn streams over the session's socket room.", schema: startedTurnResponse } },
    errors: ["AI_ALLOWANCE_EXHAUSTED", "NOT_FOUND", "TURN_IN_PROGRESS", "QUEUE_UNAVAILABLE"],
    use: (deps) => [readAllowanceAhead(deps), ...onceWithinLimits(deps, "admin")],
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      const started = await startAdminTurn(deps, { orgId: principal.orgId, userId: principal.userId }, body);
      ctx.status = 202;
      ctx.body = started;
    },
  }),
  // The owner's turn only (admin assistant turns too); 202 while it runs, 409 once it has ended.
  defineRoute({
    method: "post",
    path: "/api/v1/chat/turns/:id/cancel",
    tag: "chat",
    summary: "Cancel one of your own turns (tutor or admin assistant)",
    description: "The worker stores what streamed so far as `cancelled` and ends the turn with `done {cancelled: true}`.",
    access: "bearer",
    params: turnParams,
    responses: { 202: { description: "Cancelling.", schema: cancelTurnResponse } },
    errors: ["NOT_FOUND", "TURN_ALREADY_FINISHED"],
    handler: async (ctx, { params }, deps) => {
      const principal = principalOf(ctx);
      ctx.status = 202;
      ctx.body = await cancelTurn(deps, { orgId: principal.orgId, userId: principal.userId }, params.id);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/chat/sessions",
    tag: "chat",
    summary: "The caller's 50 most recently updated sessions",
    description: "Admin assistant sessions are listed to admins only; `agent_type=admin` from anyone else is 403.",
    access: "bearer",
    query: listSessionsQuery,
    responses: { 200: { description: "The sessions.", schema: sessionsResponse } },
    errors: ["FORBIDDEN"],
    handler: async (ctx, { query }, deps) => {
      const principal = principalOf(ctx);
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
    },
  }),
  // Newest page first (the page a chat window opens on), oldest first within the page;
  // `next_before` fetches the page before it and is null at the start of the session.
  defineRoute({
    method: "get",
    path: "/api/v1/chat/sessions/:id/messages",
    tag: "chat",
    summary: "One page of a session's messages, oldest first within the page; each question with the files sent with it",
    description: "An admin assistant session's messages are for admins only (403 for an account that is no longer an admin).",
    access: "bearer",
    params: sessionParams,
    query: listMessagesQuery,
    responses: { 200: { description: "The session and one page of its messages.", schema: messagesResponse } },
    errors: ["NOT_FOUND", "FORBIDDEN"],
    handler: async (ctx, { params: { id }, query: { before, limit } }, deps) => {
      ctx.body = await sessionHistoryPage(deps.db, principalOf(ctx), id, { before, limit });
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/chat/sessions/:id",
    tag: "chat",
    summary: "Delete a session and its messages",
    access: "bearer",
    params: sessionParams,
    responses: { 204: { description: "Deleted." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      await deleteChatSession(deps, { orgId: principal.orgId, userId: principal.userId }, id);
      ctx.status = 204;
    },
  }),
];
