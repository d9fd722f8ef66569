/**
 * A turn's event emitter: binds session and turn so stages only name the event.
 *
 * Tokens do not wait for Redis: each is queued on the process's event log (queues/events/
 * turn-stream.ts), which joins it to the turn's `token` event still waiting there, so a fast
 * model or a busy Redis costs one append per round trip rather than one per token. Any other
 * event first waits until the tokens before it are in the log — also when it comes from another
 * emitter of the same turn in this process, like the failure announcement after a stream broke —
 * so a token append that failed is reported before anything follows it. (A paced variant that
 * held tokens for a window measured worse under load and was removed: bench/optimisations.md 10.2.)
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

/** A turn's newest token append, and the first failure among its token appends. */
interface TokenState {
  latest: Promise<unknown>;
  failure: unknown;
}

/**
 * Per event log (one per worker's deps, so two workers in one process never share it): the turns
 * with token appends not yet confirmed; an entry goes once the newest one is in the log.
 */
const pendingByLog = new WeakMap<TurnEventLog, Map<string, TokenState>>();

function pendingTokens(events: TurnEventLog): Map<string, TokenState> {
  let pending = pendingByLog.get(events);
  if (!pending) pendingByLog.set(events, (pending = new Map()));
  return pending;
}

/** Hands the content to the event log and tracks the append, so the next event waits for it and a failure is reported. */
function sendTokens(events: TurnEventLog, sessionId: string, turnId: string, content: string, trace?: string): void {
  let sent: Promise<number>;
  try {
    sent = events.appendToken(sessionId, turnId, content, trace);
  } catch (error) {
    // A handed-back job's log refuses at once (workers/hand-back.ts): reported by the next emit, like a failed append.
    sent = Promise.reject(error);
  }
  const tokensByTurn = pendingTokens(events);
  let state = tokensByTurn.get(turnId);
  // Joined to the event the previous token went into (a frame, or the queue): already tracked.
  if (state?.latest === sent) return;
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

export function turnEmitter(events: TurnEventLog, sessionId: string, turnId: string): TurnEmitter {
  /** Whether the turn's first token went out; it carries the trace context to the server's delivery span. */
  let tokenSent = false;
  const tokensByTurn = pendingTokens(events);

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
        sendTokens(events, sessionId, turnId, (payload as TurnEventPayloads["token"]).content, tokenSent ? undefined : currentTraceparent());
        tokenSent = true;
        return 0;
      }
      // Tokens held for the turn's frame go now, ahead of this event, rather than when the frame ends.
      events.releaseTokens(turnId);
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
