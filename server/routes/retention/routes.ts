/**
 * How long the caller's organisation keeps its chats (admins): read the setting with what the
 * last `chat-retention` sweep deleted, and set it (audited as `retention.updated`). The sweep
 * itself runs in the workers (workers/maintenance/chat-retention.ts); see docs/operations.md.
 */
import { setChatRetention } from "../../../commands/chat-retention";
import { retentionOf, type RetentionRow } from "../../../db/queries/chat-retention";
import { principalOf } from "../../auth/middleware";
import { defineRoute } from "../define-route";
import { putRetentionBody, retentionResponse, type RetentionBody } from "./schema";

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

function presentRetention(row: RetentionRow): RetentionBody {
  return {
    chat_retention_days: row.chat_retention_days,
    updated_at: iso(row.updated_at),
    updated_by: row.updated_by,
    last_sweep: row.last_sweep_at
      ? { finished_at: new Date(row.last_sweep_at).toISOString(), sessions: row.last_sweep_sessions, messages: row.last_sweep_messages }
      : null,
    sweep_in_progress: row.sweep_started_at
      ? { started_at: new Date(row.sweep_started_at).toISOString(), sessions: row.sweep_sessions, messages: row.sweep_messages }
      : null,
  };
}

export const retentionRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/retention",
    tag: "retention",
    summary: "How long the organisation keeps its chats, and what the last retention sweep deleted",
    access: "admin",
    responses: { 200: { description: "The setting and the sweep's record.", schema: retentionResponse } },
    handler: async (ctx, _input, deps) => {
      ctx.body = presentRetention(await retentionOf(deps.db, principalOf(ctx).orgId));
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/v1/admin/retention",
    tag: "retention",
    summary: "Set how many days the organisation keeps its chats (null: forever); audited",
    description:
      "Chat sessions (tutor and admin assistant) whose last activity is older are deleted by the next `chat-retention` sweep " +
      "(RETENTION_SWEEP_INTERVAL_MS), with their messages, feedback, question vectors and Redis turn logs; the content-gap report " +
      "never looks further back. Usage rows stay (billing) but no longer name the deleted turns.",
    access: "admin",
    body: putRetentionBody,
    responses: { 200: { description: "The setting after the change.", schema: retentionResponse } },
    handler: async (ctx, { body }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      await setChatRetention(deps, { orgId, days: body.chat_retention_days, actorId: userId });
      ctx.body = presentRetention(await retentionOf(deps.db, orgId));
    },
  }),
];
