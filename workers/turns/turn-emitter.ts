/**
 * A turn's event emitter: binds session and turn so stages only name the event.
 *
 * Tokens do not wait for Redis: each is queued on the process's event log (queues/events/
 * turn-stream.ts), which joins it to the turn's `token` event still waiting there, so a fast
 * model or a busy Redis costs one append per round trip rather than one per token. Any other
 * event first waits until the tokens before it are in the log — also when it comes from another
 * emitter of the same turn in this process, like the failure announcement after a stream broke —
 * so a token append that failed is reported before anything follows it.
 */
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { TurnEventName, TurnEventPayloads } from "../../queues/events/contract";

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

/** Turns with token appends not yet confirmed; an entry goes once the newest one is in the log. */
const tokensByTurn = new Map<string, TokenState>();

export function turnEmitter(events: TurnEventLog, sessionId: string, turnId: string): TurnEmitter {
  /** Throws (once) a token append of the turn that failed. */
  const reportFailure = (state: TokenState | undefined): void => {
    if (!state?.failure) return;
    tokensByTurn.delete(turnId);
    throw state.failure;
  };

  return {
    async emit(event, payload) {
      let state = tokensByTurn.get(turnId);
      if (event === "token") {
        reportFailure(state);
        const sent = events.appendToken(sessionId, turnId, (payload as TurnEventPayloads["token"]).content);
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
        return 0;
      }
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
