/** A turn's event emitter: binds session and turn so stages only name the event. */
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { TurnEventName, TurnEventPayloads } from "../../queues/events/contract";

export interface TurnEmitter {
  emit<E extends TurnEventName>(event: E, payload: TurnEventPayloads[E]): Promise<number>;
}

export function turnEmitter(events: TurnEventLog, sessionId: string, turnId: string): TurnEmitter {
  return {
    emit: (event, payload) => events.append(sessionId, turnId, event, payload),
  };
}
