/**
 * Who may open a socket: the handshake must carry a valid token, the user must be within their
 * connection rate and their cap of open sockets, and the database must confirm the token's
 * account; only then does the socket carry its principal.
 */
import { roomForUser } from "../../queues/events/contract";
import { confirmOrRefuse } from "../auth/middleware";
import type { ServerDeps } from "../deps";
import type { GatewayServer } from "./gateway";
import type { SocketCap } from "./socket-cap";
import type { SocketLimits } from "./socket-limits";

/** Admits a socket only past every check of its handshake (each refusal carries its `code` in `data`). */
export function admitSockets(io: GatewayServer, deps: ServerDeps, limits: SocketLimits, cap: SocketCap): void {
  // The code stays UNAUTHORIZED (what clients act on); a provider token's refusal adds why, as `reason`.
  const unauthorized = (reason?: string) =>
    Object.assign(new Error("UNAUTHORIZED: a valid token is required in auth.token"), {
      data: reason && reason !== "UNAUTHORIZED" ? { code: "UNAUTHORIZED", reason } : { code: "UNAUTHORIZED" },
    });
  // Cheapest first: the signature (no I/O but a provider's cached JWKS and, for a provider's token,
  // its cached identity link), the user's handshake rate (memory, then Redis), the
  // user's open sockets (memory, then Redis); only then the database, once per admitted socket.
  io.use(async (socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const checked = typeof token === "string" ? await deps.tokens.check(token).catch(() => null) : null;
    if (!checked?.ok) return next(unauthorized(checked?.code));
    const signed = checked.token;
    const { userId } = signed.principal;
    const refused = await limits.check("connection", userId);
    if (refused)
      return next(Object.assign(new Error(`RATE_LIMITED: ${refused.message}`), { data: { code: "RATE_LIMITED", retry_after: refused.details?.retry_after } }));
    const holder = { userId, socketId: socket.id };
    if (!(await cap.claim(holder, io.sockets.adapter.rooms.get(roomForUser(userId))?.size ?? 0))) {
      const message = `TOO_MANY_SOCKETS: at most ${deps.config.sockets.SOCKET_MAX_PER_USER} open connections per user; close another tab or connection first`;
      return next(Object.assign(new Error(message), { data: { code: "TOO_MANY_SOCKETS" } }));
    }
    const confirmed = await confirmOrRefuse(deps, signed).catch(() => null);
    if (!confirmed?.ok) {
      await cap.release(holder);
      return next(unauthorized(confirmed?.code));
    }
    const verified = confirmed.token;
    socket.data.principal = verified.principal;
    socket.data.expiresAt = verified.expiresAt;
    if (verified.signInId) socket.data.signInId = verified.signInId;
    socket.once("disconnect", () => void cap.release(holder));
    next();
  });
}
