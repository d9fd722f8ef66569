/**
 * A chat with the tutor or the admin assistant over the public API: the session list, the open
 * session's history (newest page first, older pages on demand), sending, and the live turn
 * streamed over the socket. After every (re)connection the open session is joined again with the
 * last `seq` seen, so a dropped connection resumes the answer without repeating or losing text.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api";
import { describeApiError } from "./errors";
import { t } from "./i18n";
import { TURN_EVENTS, applyEvent, newTurn, type LiveTurn, type TurnEventName, type TurnEventPayload } from "./live-turn";
import type { LiveSocket } from "./socket";
import type { MessagePage, SentFile, SessionSummary, StoredMessage, TurnStarted } from "./types";

export type Agent = "tutor" | "admin";

/** A message sent from this page whose turn has not (or not yet) reached the stored history. */
export interface Outgoing {
  key: string;
  turnId?: string;
  text?: string;
  /** The files sent with it, shown under it as the history will show them. */
  files?: SentFile[];
}

export interface Conversation {
  sessions: SessionSummary[];
  sessionId: string | null;
  history: StoredMessage[];
  hasMore: boolean;
  outgoing: Outgoing[];
  live: Record<string, LiveTurn>;
  error: string | null;
  sending: boolean;
  loading: boolean;
  open(sessionId: string | null): Promise<void>;
  loadEarlier(): Promise<void>;
  send(text: string, context?: { course_id?: string; lesson_id?: string }, files?: SentFile[]): Promise<boolean>;
  remove(sessionId: string): Promise<void>;
  stop(turnId: string): Promise<void>;
  dismissError(): void;
  /** The turn still streaming, if any (for the Stop button). */
  streaming: LiveTurn | undefined;
}

let localKeys = 0;

export function useConversation(live: LiveSocket, agent: Agent): Conversation {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [history, setHistory] = useState<StoredMessage[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const [outgoing, setOutgoing] = useState<Outgoing[]>([]);
  const [turns, setTurns] = useState<Record<string, LiveTurn>>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [loading, setLoading] = useState(false);

  // Socket handlers read these without re-subscribing on every render.
  const current = useRef<string | null>(null);
  const storedTurns = useRef(new Set<string>());
  const turnsRef = useRef(turns);
  turnsRef.current = turns;

  const refreshSessions = useCallback(async () => {
    const body = await api.get<{ sessions: SessionSummary[] }>(`/api/v1/chat/sessions?agent_type=${agent}`);
    setSessions(body.sessions);
  }, [agent]);

  /** Join the open session; with a turn still streaming, resume it after the last seq seen. */
  const joinCurrent = useCallback(() => {
    const id = current.current;
    if (!id) return;
    const unfinished = Object.values(turnsRef.current).filter((t) => t.sessionId === id && t.status === "streaming");
    const resume = unfinished.at(-1);
    const request = resume ? { sessionId: id, turnId: resume.turnId, lastSeq: resume.lastSeq } : { sessionId: id };
    live.socket
      .timeout(10_000)
      .emit("join", request, (timeout: Error | null, ack?: { ok: boolean; error?: { code: string; message: string; retryAfter?: number } }) => {
        if (timeout || !ack) return; // the next reconnection joins again
        if (!ack.ok && ack.error)
          setError(ack.error.code === "RATE_LIMITED" ? t("error.tooManyReconnects", { seconds: ack.error.retryAfter ?? 60 }) : ack.error.message);
      });
  }, [live]);

  useEffect(() => {
    const handlers = TURN_EVENTS.map((name) => {
      const handler = (event: TurnEventPayload): void => {
        if (event.sessionId !== current.current || storedTurns.current.has(event.turnId)) return;
        setTurns((all) => {
          const before = all[event.turnId] ?? newTurn(event.sessionId, event.turnId);
          const after = applyEvent(before, name as TurnEventName, event);
          return after === before && all[event.turnId] ? all : { ...all, [event.turnId]: after };
        });
        if (name === "done") void refreshSessions().catch(() => undefined);
      };
      live.socket.on(name, handler);
      return [name, handler] as const;
    });
    const stopJoining = live.onConnect(joinCurrent);
    return () => {
      for (const [name, handler] of handlers) live.socket.off(name, handler);
      stopJoining();
    };
  }, [live, joinCurrent, refreshSessions]);

  useEffect(() => {
    refreshSessions().catch((caught) => setError(describeApiError(caught)));
  }, [refreshSessions]);

  const adoptHistory = (page: MessagePage, older: StoredMessage[] = []): void => {
    const messages = [...page.messages, ...older];
    for (const m of messages) if (m.role === "assistant") storedTurns.current.add(m.turn_id);
    setHistory(messages);
    setNextBefore(page.has_more ? page.next_before : null);
  };

  const open = useCallback(
    async (id: string | null) => {
      if (current.current && current.current !== id) live.socket.emit("leave", { sessionId: current.current });
      current.current = id;
      storedTurns.current = new Set();
      setSessionId(id);
      setHistory([]);
      setNextBefore(null);
      setOutgoing([]);
      setTurns({});
      setError(null);
      if (!id) return;
      setLoading(true);
      try {
        const page = await api.get<MessagePage>(`/api/v1/chat/sessions/${id}/messages?limit=50`);
        if (current.current !== id) return;
        adoptHistory(page);
        // After the history: a turn the history already holds is ignored when replayed.
        if (live.socket.connected) joinCurrent();
      } catch (caught) {
        setError(describeApiError(caught));
      } finally {
        setLoading(false);
      }
    },
    [live, joinCurrent],
  );

  const loadEarlier = async (): Promise<void> => {
    if (!sessionId || !nextBefore) return;
    try {
      const page = await api.get<MessagePage>(`/api/v1/chat/sessions/${sessionId}/messages?limit=50&before=${nextBefore}`);
      adoptHistory(page, history);
    } catch (caught) {
      setError(describeApiError(caught));
    }
  };

  const send = async (text: string, context: { course_id?: string; lesson_id?: string } = {}, files: SentFile[] = []): Promise<boolean> => {
    const key = `local-${++localKeys}`;
    const attachmentIds = files.map((file) => file.id);
    setOutgoing((list) => [...list, { key, text, files }]);
    setSending(true);
    setError(null);
    try {
      const started =
        agent === "admin"
          ? await api.post<TurnStarted>("/api/v1/chat/admin", { message: text, ...(sessionId ? { session_id: sessionId } : {}) })
          : await api.post<TurnStarted>("/api/v1/chat", {
              message: text,
              context,
              ...(sessionId ? { session_id: sessionId } : {}),
              ...(attachmentIds.length > 0 ? { attachment_ids: attachmentIds } : {}),
            });
      setOutgoing((list) => list.map((o) => (o.key === key ? { ...o, turnId: started.turn_id } : o)));
      if (!sessionId) {
        current.current = started.session_id;
        setSessionId(started.session_id);
        joinCurrent();
      }
      void refreshSessions().catch(() => undefined);
      return true;
    } catch (caught) {
      setOutgoing((list) => list.filter((o) => o.key !== key));
      setError(describeApiError(caught));
      return false;
    } finally {
      setSending(false);
    }
  };

  const remove = async (id: string): Promise<void> => {
    try {
      await api.del(`/api/v1/chat/sessions/${id}`);
      if (id === current.current) await open(null);
      await refreshSessions();
    } catch (caught) {
      setError(describeApiError(caught));
    }
  };

  const stop = async (turnId: string): Promise<void> => {
    try {
      await api.post(`/api/v1/chat/turns/${turnId}/cancel`);
    } catch (caught) {
      const code = (caught as { code?: string }).code;
      // Already over: `done` (or its replay) tells how it ended, so there is nothing to say.
      if (code !== "TURN_ALREADY_FINISHED") setError(code === "NOT_FOUND" ? t("error.cannotStop") : describeApiError(caught));
    }
  };

  const streaming = Object.values(turns).find((t) => t.status === "streaming");
  return {
    sessions,
    sessionId,
    history,
    hasMore: nextBefore !== null,
    outgoing,
    live: turns,
    error,
    sending,
    loading,
    open,
    loadEarlier,
    send,
    remove,
    stop,
    dismissError: () => setError(null),
    streaming,
  };
}
