/**
 * Exactly-once, in-order delivery of turn events to one socket. Live events arrive from the
 * Redis channel; a join or a reconnect asks for a replay from the turn's stream. Both paths
 * go through `deliver`, which runs one at a time per socket, skips what the socket already
 * has and fills any gap from the stream, so the client sees every `seq` once, in order.
 */
import type { Socket } from "socket.io";
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { TurnEvent, TurnEventName } from "../../queues/events/contract";

interface DeliveryState {
  /** Highest `seq` delivered per turn. */
  cursors: Map<string, number>;
  /** Serialises deliveries so live events and replays never interleave. */
  chain: Promise<void>;
}

const states = new WeakMap<Socket, DeliveryState>();

function stateOf(socket: Socket): DeliveryState {
  let state = states.get(socket);
  if (!state) {
    state = { cursors: new Map(), chain: Promise.resolve() };
    states.set(socket, state);
  }
  return state;
}

export class TurnDelivery {
  constructor(private readonly log: TurnEventLog) {}

  /** Queue one live event for the socket. */
  deliver(socket: Socket, event: TurnEventName, payload: TurnEvent): Promise<void> {
    return this.enqueue(socket, async (state) => {
      const cursor = state.cursors.get(payload.turnId) ?? 0;
      if (payload.seq <= cursor) return;
      if (payload.seq > cursor + 1) {
        try {
          await this.emitFromLog(socket, state, payload.turnId, cursor + 1, payload.seq - 1);
        } catch (error) {
          // Emitting this event now would skip the gap for good; fetch it all again shortly.
          setTimeout(() => void this.replay(socket, payload.sessionId, payload.turnId, cursor).catch(() => undefined), 500).unref();
          throw error;
        }
      }
      this.emit(socket, state, event, payload);
    });
  }

  /** Replay a turn from `afterSeq + 1` up to whatever the log holds now; returns how many were sent. */
  replay(socket: Socket, sessionId: string, turnId: string, afterSeq: number): Promise<number> {
    let sent = 0;
    return this.enqueue(socket, async (state) => {
      const cursor = Math.max(state.cursors.get(turnId) ?? 0, afterSeq);
      state.cursors.set(turnId, cursor);
      sent = await this.emitFromLog(socket, state, turnId, cursor + 1, undefined, sessionId);
    }).then(() => sent);
  }

  private enqueue(socket: Socket, task: (state: DeliveryState) => Promise<void>): Promise<void> {
    const state = stateOf(socket);
    const run = state.chain.then(() => (socket.connected ? task(state) : undefined));
    // A failed read must not wedge the socket's queue; the next event retries the gap.
    state.chain = run.catch(() => undefined);
    return run;
  }

  private async emitFromLog(socket: Socket, state: DeliveryState, turnId: string, fromSeq: number, toSeq?: number, sessionId?: string): Promise<number> {
    const events = await this.log.read(turnId, fromSeq, toSeq);
    let sent = 0;
    for (const { event, payload } of events) {
      if (sessionId && payload.sessionId !== sessionId) continue;
      if (payload.seq <= (state.cursors.get(turnId) ?? 0)) continue;
      this.emit(socket, state, event, payload);
      sent += 1;
    }
    return sent;
  }

  private emit(socket: Socket, state: DeliveryState, event: TurnEventName, payload: TurnEvent): void {
    state.cursors.set(payload.turnId, payload.seq);
    (socket.emit as (event: string, payload: unknown) => boolean)(event, payload);
  }
}
