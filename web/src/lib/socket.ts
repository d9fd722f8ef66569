/**
 * The one Socket.IO connection of a page, authenticated with the tab's token. It reconnects by
 * itself; the page learns of every (re)connection through `onConnect` so it can re-join its
 * session with the last `seq` it saw. When the browser reports it is offline the socket is closed
 * at once (rather than waiting for a heartbeat to time out) and opened again when it is back.
 */
import { io, type Socket } from "socket.io-client";
import { t } from "./i18n";
import { hasCookieSession, refreshSession } from "./session";
import { tokenStore } from "./token-store";

export type ConnectionState = "connecting" | "connected" | "offline";

export interface LiveSocket {
  socket: Socket;
  state(): ConnectionState;
  onState(listener: (state: ConnectionState) => void): () => void;
  /** Runs now if connected, and after every reconnection. */
  onConnect(listener: () => void): () => void;
  close(): void;
}

export function openSocket(onAuthFailure: (message: string) => void): LiveSocket {
  // Read at every handshake, so a reconnection carries the token the session refreshed last.
  const socket = io({
    path: "/socket.io",
    auth: (send) => send({ token: tokenStore.get() }),
    transports: ["websocket"],
    reconnectionDelay: 500,
    reconnectionDelayMax: 5_000,
  });
  let state: ConnectionState = "connecting";
  const stateListeners = new Set<(state: ConnectionState) => void>();
  const connectListeners = new Set<() => void>();
  const setState = (next: ConnectionState): void => {
    state = next;
    for (const listener of stateListeners) listener(next);
  };

  socket.on("connect", () => {
    setState("connected");
    for (const listener of connectListeners) listener();
  });
  socket.on("disconnect", () => setState(navigator.onLine ? "connecting" : "offline"));
  // A refused handshake or a socket cut for flooding is not retried by socket.io itself: try again later.
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connectLater = (seconds: number): void => {
    clearTimeout(retry);
    retry = setTimeout(() => {
      if (!socket.connected && navigator.onLine) socket.connect();
    }, seconds * 1000);
  };
  // A token that ran out (or an account the server re-checked): a single sign-on session tries its refresh cookie once, then gives up.
  const reauthenticate = async (message: string): Promise<void> => {
    if (hasCookieSession() && (await refreshSession())) {
      socket.connect();
      return;
    }
    onAuthFailure(message);
  };
  socket.on("connect_error", (error: Error & { data?: { code?: string; retry_after?: number } }) => {
    const code = error.data?.code;
    if (code === "UNAUTHORIZED") return void reauthenticate(t("error.signInInvalid"));
    setState(navigator.onLine ? "connecting" : "offline");
    if (code === "RATE_LIMITED" || code === "TOO_MANY_SOCKETS") connectLater(error.data?.retry_after ?? 15);
  });
  socket.on("auth_expired", (payload: { message: string }) => void reauthenticate(payload.message));
  socket.on("rate_limited", () => connectLater(15));

  const goOffline = (): void => {
    socket.disconnect();
    setState("offline");
  };
  const goOnline = (): void => {
    setState("connecting");
    socket.connect();
  };
  window.addEventListener("offline", goOffline);
  window.addEventListener("online", goOnline);

  return {
    socket,
    state: () => state,
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    onConnect(listener) {
      connectListeners.add(listener);
      if (socket.connected) listener();
      return () => connectListeners.delete(listener);
    },
    close() {
      clearTimeout(retry);
      window.removeEventListener("offline", goOffline);
      window.removeEventListener("online", goOnline);
      socket.disconnect();
    },
  };
}
