/**
 * A socket's requests beyond its rooms: `watch_action` replays an admin action's events to an
 * admin, `cancel` stops one of the user's turns (commands/cancel-turn.ts).
 */
import { z } from "zod";
import { cancelTurn } from "../../commands/cancel-turn";
import { findAction } from "../../db/queries/admin-actions";
import { Refusal } from "../../lib/refusal";
import type { ConnectionScope, GatewaySocket } from "./gateway";

const watchActionRequest = z.object({ actionId: z.uuid(), lastSeq: z.number().int().min(0).optional() });

const cancelRequest = z.object({ turnId: z.uuid() });

/** The `watch_action` and `cancel` handlers of one connected socket. */
export function handleWatchAndCancel(socket: GatewaySocket, { deps, log, reauth, delivery, userLimited }: ConnectionScope): void {
  const { principal } = socket.data;
  socket.on("watch_action", async (raw, ack) => {
    const reply = typeof ack === "function" ? ack : () => undefined;
    const parsed = watchActionRequest.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "watch_action needs {actionId: UUID, lastSeq?: integer}" } });
    // The role as of the handshake or the last re-check: an employee is refused without a read.
    const forbidden = { ok: false as const, error: { code: "FORBIDDEN", message: "Admin actions are for admins only" } };
    if (principal.role !== "admin") return reply(forbidden);
    const limited = await userLimited("event");
    if (limited) return reply(limited);
    const denied = await reauth.recheck(socket).catch(() => null);
    if (denied) {
      reply({ ok: false, error: denied });
      return reauth.cut(socket, denied);
    }
    // The re-check read the role afresh: an admin demoted since is refused too.
    if (principal.role !== "admin") return reply(forbidden);
    try {
      const action = await findAction(deps.db, principal.orgId, parsed.data.actionId);
      if (!action) return reply({ ok: false, error: { code: "NOT_FOUND", message: "Admin action not found" } });
      const replayed = await delivery.replayAction(socket, action.id, parsed.data.lastSeq ?? 0);
      reply({ ok: true, replayed });
    } catch (error) {
      log.error({ err: error, actionId: parsed.data.actionId }, "watch_action failed");
      reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not replay the action; please retry" } });
    }
  });

  socket.on("cancel", async (raw, ack) => {
    const reply = typeof ack === "function" ? ack : () => undefined;
    const parsed = cancelRequest.safeParse(raw);
    if (!parsed.success) return reply({ ok: false, error: { code: "VALIDATION_ERROR", message: "cancel needs {turnId: UUID}" } });
    const limited = await userLimited("event");
    if (limited) return reply(limited);
    try {
      const denied = await reauth.recheck(socket);
      if (denied) {
        reply({ ok: false, error: denied });
        return reauth.cut(socket, denied);
      }
      await cancelTurn(deps, { orgId: principal.orgId, userId: principal.userId }, parsed.data.turnId);
      reply({ ok: true, turnId: parsed.data.turnId });
    } catch (error) {
      if (error instanceof Refusal) return reply({ ok: false, error: { code: error.code, message: error.message } });
      log.error({ err: error, turnId: parsed.data.turnId }, "cancel failed");
      reply({ ok: false, error: { code: "INTERNAL_ERROR", message: "Could not cancel the turn; please retry" } });
    }
  });
}
