/**
 * Keeps a socket's authorisation as current as a request's. The handshake checks the token
 * once, but a socket can stay open for days: so each socket gets a timer at its token's expiry,
 * every `join`/`watch_action` re-checks the account, and a periodic sweep re-checks all of this
 * node's sockets with one query. A socket that fails gets `auth_expired {code, message}` and is
 * disconnected; the client must sign in again for a new token.
 */
import type { Logger } from "pino";
import type { Server, Socket } from "socket.io";
import { findActiveUsers, findUser } from "../../db/queries/users";
import type { AuthExpired } from "../../queues/events/contract";
import { ACCOUNT_INACTIVE } from "../../queues/events/user-events";
import type { Principal } from "../auth/tokens";
import type { ServerDeps } from "../deps";

/** What the gateway keeps on each socket. */
export interface AuthenticatedSocketData {
  principal: Principal;
  /** Epoch ms at which the handshake token stops being valid. */
  expiresAt: number;
  /** The browser sign-in the token came from (its sockets are cut together when it ends). */
  signInId?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the re-auth sweep serves sockets whatever their event maps
type AnySocket = Socket<any, any, any, AuthenticatedSocketData>;

// setTimeout overflows above 2^31−1 ms (~24.8 days); such tokens are left to the sweep.
const MAX_TIMER_MS = 2 ** 31 - 1;

const TOKEN_EXPIRED: AuthExpired = { code: "TOKEN_EXPIRED", message: "Your token has expired; sign in again and reconnect with the new token" };

export class SocketReauth {
  private readonly expiryTimers = new Map<string, NodeJS.Timeout>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: as AnySocket
    private readonly io: Server<any, any, any, AuthenticatedSocketData>,
    private readonly deps: Pick<ServerDeps, "db">,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), this.intervalMs);
    this.sweepTimer.unref();
  }

  /** Arms the socket's expiry timer; call once it is connected. */
  track(socket: AnySocket): void {
    const delay = socket.data.expiresAt - Date.now();
    if (delay > MAX_TIMER_MS) return;
    const timer = setTimeout(() => this.cut(socket, TOKEN_EXPIRED), Math.max(0, delay));
    timer.unref();
    this.expiryTimers.set(socket.id, timer);
    socket.once("disconnect", () => {
      clearTimeout(timer);
      this.expiryTimers.delete(socket.id);
    });
  }

  /** Null while the socket may go on; otherwise why not (the caller answers, then `cut`s). */
  async recheck(socket: AnySocket): Promise<AuthExpired | null> {
    if (Date.now() >= socket.data.expiresAt) return TOKEN_EXPIRED;
    const { principal } = socket.data;
    const user = await findUser(this.deps.db, principal.orgId, principal.userId);
    if (!user?.is_active) return ACCOUNT_INACTIVE;
    principal.role = user.role;
    return null;
  }

  /** Tells the client why, then disconnects it (the event is flushed before the close). */
  cut(socket: AnySocket, reason: AuthExpired): void {
    if (!socket.connected) return;
    this.log.info({ userId: socket.data.principal.userId, code: reason.code }, "socket lost its authorisation; disconnecting");
    socket.emit("auth_expired", reason);
    socket.disconnect(true);
  }

  /** Every local socket, at once: expired tokens locally, accounts in one query. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      const live: AnySocket[] = [];
      for (const socket of this.io.sockets.sockets.values()) {
        if (now >= socket.data.expiresAt) this.cut(socket, TOKEN_EXPIRED);
        else live.push(socket);
      }
      if (live.length === 0) return;
      const members = new Map(live.map((s) => [s.data.principal.userId, { orgId: s.data.principal.orgId, userId: s.data.principal.userId }]));
      const active = new Map((await findActiveUsers(this.deps.db, [...members.values()])).map((u) => [u.id, u.role]));
      for (const socket of live) {
        const role = active.get(socket.data.principal.userId);
        if (role) socket.data.principal.role = role;
        else this.cut(socket, ACCOUNT_INACTIVE);
      }
    } catch (error) {
      // A database blip must not disconnect everyone; the next sweep tries again.
      this.log.warn({ err: error }, "socket re-authorisation sweep failed");
    } finally {
      this.sweeping = false;
    }
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
  }
}
