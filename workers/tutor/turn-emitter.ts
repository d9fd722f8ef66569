/**
 * A turn's event emitter: binds session and turn so stages only name the event.
 *
 * Tokens are coalesced while an append is in flight: the first token goes to Redis at once, and
 * whatever the model streams during that round trip travels as one `token` event after it. A slow
 * stream therefore sees no added delay, while a fast one (or a busy Redis) costs one append per
 * round trip instead of one per token (bench/results.md, measures 1–3). Any other event first
 * waits for the tokens before it — also when it comes from another emitter of the same turn in
 * this process, like the failure announcement after a stream broke — so the log keeps the order
 * in which the stages emitted.
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

/** Tokens of one turn not yet in its log. */
interface PendingTokens {
  text: string;
  inFlight: Promise<void> | null;
  failure: unknown;
}

/** Turns with tokens still pending or in flight; an entry goes once its tokens are in the log. */
const pendingByTurn = new Map<string, PendingTokens>();

export function turnEmitter(events: TurnEventLog, sessionId: string, turnId: string): TurnEmitter {
  const send = (state: PendingTokens): void => {
    const content = state.text;
    state.text = "";
    state.inFlight = events.append(sessionId, turnId, "token", { content }).then(
      () => {
        state.inFlight = null;
        if (state.text) send(state);
        else if (pendingByTurn.get(turnId) === state) pendingByTurn.delete(turnId);
      },
      (error: unknown) => {
        // Kept until the next emit of the turn reports it once.
        state.failure = error;
        state.inFlight = null;
        state.text = "";
      },
    );
  };

  const reportFailure = (state: PendingTokens): void => {
    if (!state.failure) return;
    pendingByTurn.delete(turnId);
    throw state.failure;
  };

  /** Waits until every token queued for the turn is in its log; throws if one could not be appended. */
  const drain = async (): Promise<void> => {
    const state = pendingByTurn.get(turnId);
    if (!state) return;
    while (state.inFlight) await state.inFlight;
    reportFailure(state);
  };

  return {
    async emit(event, payload) {
      if (event === "token") {
        let state = pendingByTurn.get(turnId);
        if (state) reportFailure(state);
        else pendingByTurn.set(turnId, (state = { text: "", inFlight: null, failure: null }));
        state.text += (payload as TurnEventPayloads["token"]).content;
        if (!state.inFlight) send(state);
        return 0;
      }
      await drain();
      return events.append(sessionId, turnId, event, payload);
    },
  };
}
