/**
 * A turn's event emitter: binds session and turn so stages only name the event.
 *
 * Tokens do not wait for Redis: each is queued on the process's event log (queues/events/
 * turn-stream.ts), which joins it to the turn's `token` event still waiting there, so a fast
 * model or a busy Redis costs one append per round trip rather than one per token. Any other
 * event first waits until the tokens before it are in the log — also when it comes from another
 * emitter of the same turn in this process, like the failure announcement after a stream broke —
 * so a token append that failed is reported before anything follows it.
 *
 * Joining per round trip alone sends more, smaller appends the faster Redis answers (a quiet
 * machine paid 1.48 commands per token, bench/optimisations.md section 8.7). So an emitter given
 * a token window sends the process's token appends at most once per window: a token goes at once
 * when no token left the process within the window (a quiet worker adds no delay), taking every
 * turn's held tokens with it; else it is held until the window since the last append has passed —
 * the next token to arrive then, or one timer for every turn, sends all held tokens together in
 * one script call — or until MAX_HELD_TOKENS wait for its turn. A turn's first
 * token always goes at once (its latency is the one users see), and any other event of the turn
 * sends the held ones first: order and exactly-once are the log's as before.
 */
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { TurnEventName, TurnEventPayloads } from "../../queues/events/contract";
import { currentTraceparent } from "../../lib/telemetry/spans";

export interface TurnEmitter {
  /**
   * Appends the event; resolves with its `seq`. A `token` resolves as soon as it is queued (with
   * 0: its seq is not known yet); an append that failed is thrown by the next emit.
   */
  emit<E extends TurnEventName>(event: E, payload: TurnEventPayloads[E]): Promise<number>;
}

/** The pace of the process's token appends (`STREAM_TOKEN_WINDOW_MS`): at most one per `ms`; 0 sends each at once. */
export interface TokenWindow {
  ms: number;
}

/** A turn's held tokens go out once this many are waiting, whatever the window: bounds one event's text. */
export const MAX_HELD_TOKENS = 32;

/** A turn's newest token append, and the first failure among its token appends. */
interface TokenState {
  latest: Promise<unknown>;
  failure: unknown;
}

/** Tokens of a turn held for the window, not yet handed to the event log. */
interface HeldTokens {
  events: TurnEventLog;
  sessionId: string;
  content: string;
  count: number;
}

/** Turns with token appends not yet confirmed; an entry goes once the newest one is in the log. */
const tokensByTurn = new Map<string, TokenState>();
/** Turns with held tokens; the window's timer sends them all. */
const heldByTurn = new Map<string, HeldTokens>();
/** The timer that sends every held token, and when it fires: the earliest window of the tokens it holds. */
let windowTimer: { timeout: NodeJS.Timeout; at: number } | null = null;

/** When this process last handed tokens to an event log. */
let lastTokensSentAt = Number.NEGATIVE_INFINITY;

/** Whether the window since the process's last token append has passed (always, without a window). */
function windowPassed(window: TokenWindow): boolean {
  return performance.now() - lastTokensSentAt >= window.ms;
}

function stopWindowTimer(): void {
  if (windowTimer) clearTimeout(windowTimer.timeout);
  windowTimer = null;
}

/** Hands the content to the event log and tracks the append, so the next event waits for it and a failure is reported. */
function sendTokens(events: TurnEventLog, sessionId: string, turnId: string, content: string, trace?: string): void {
  lastTokensSentAt = performance.now();
  let sent: Promise<number>;
  try {
    sent = events.appendToken(sessionId, turnId, content, trace);
  } catch (error) {
    // A handed-back job's log refuses at once (workers/hand-back.ts); from the window's timer that must not throw.
    sent = Promise.reject(error);
  }
  let state = tokensByTurn.get(turnId);
  if (!state) tokensByTurn.set(turnId, (state = { latest: sent, failure: null }));
  const tracked = state;
  tracked.latest = sent;
  sent.then(
    () => {
      if (tracked.latest === sent && tokensByTurn.get(turnId) === tracked) tokensByTurn.delete(turnId);
    },
    (error: unknown) => {
      tracked.failure ??= error;
    },
  );
}

/** Sends the turn's held tokens now (to the event log's queue, in this tick). */
function releaseTurn(turnId: string): void {
  const held = heldByTurn.get(turnId);
  if (!held) return;
  heldByTurn.delete(turnId);
  if (heldByTurn.size === 0) stopWindowTimer();
  sendTokens(held.events, held.sessionId, turnId, held.content);
}

/**
 * Sends every turn's held tokens now. The window's timer calls it; so does a worker shutting down
 * before it waits for the event log (workers/host.ts), so no held token outlives the process.
 */
export function releaseHeldTokens(): void {
  stopWindowTimer();
  for (const turnId of [...heldByTurn.keys()]) releaseTurn(turnId);
}

function hold(events: TurnEventLog, sessionId: string, turnId: string, content: string, window: TokenWindow): void {
  const held = heldByTurn.get(turnId);
  if (held) {
    held.content += content;
    held.count++;
  } else heldByTurn.set(turnId, { events, sessionId, content, count: 1 });
  if ((held?.count ?? 1) >= MAX_HELD_TOKENS) {
    releaseTurn(turnId);
    return;
  }
  const at = lastTokensSentAt + window.ms;
  if (windowTimer && windowTimer.at <= at) return;
  stopWindowTimer();
  windowTimer = { timeout: setTimeout(releaseHeldTokens, Math.max(0, at - performance.now())), at };
}

export function turnEmitter(events: TurnEventLog, sessionId: string, turnId: string, window: TokenWindow = { ms: 0 }): TurnEmitter {
  /** Whether this emitter sent a token of the turn since its last other event: later ones may be held. */
  let streaming = false;
  /** Whether the turn's first token went out; it carries the trace context to the server's delivery span. */
  let tokenSent = false;

  /** Throws (once) a token append of the turn that failed. */
  const reportFailure = (state: TokenState | undefined): void => {
    if (!state?.failure) return;
    tokensByTurn.delete(turnId);
    throw state.failure;
  };

  return {
    async emit(event, payload) {
      if (event === "token") {
        reportFailure(tokensByTurn.get(turnId));
        const content = (payload as TurnEventPayloads["token"]).content;
        const due = windowPassed(window);
        if (streaming && !due) hold(events, sessionId, turnId, content, window);
        else {
          // Past the window every held token leaves with this one, in the same script call, without
          // waiting for the timer (a busy event loop runs timers late); else only the turn's own go
          // first (another emitter of the turn may hold some).
          if (due) releaseHeldTokens();
          else releaseTurn(turnId);
          sendTokens(events, sessionId, turnId, content, tokenSent ? undefined : currentTraceparent());
        }
        tokenSent = true;
        streaming = true;
        return 0;
      }
      streaming = false;
      releaseTurn(turnId);
      const state = tokensByTurn.get(turnId);
      while (state && !state.failure) {
        const latest = state.latest;
        await latest.catch(() => undefined);
        if (state.latest === latest) break;
      }
      reportFailure(state);
      return events.append(sessionId, turnId, event, payload);
    },
  };
}
