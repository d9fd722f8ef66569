/**
 * Exactly-once, in-order delivery of turn (and admin action) events to one socket. Live events
 * arrive from the Redis channel; a join or a reconnect asks for a replay from the log. Both paths
 * go through `deliver`, which runs one at a time per socket, skips what the socket already has
 * and fills any gap from the log, so the client sees every `seq` once, in order.
 */
import type { Socket } from "socket.io";
import { streamOf, type StreamRef } from "../../queues/events/stream-keys";
import type { TurnEventLog } from "../../queues/events/turn-stream";
import type { TurnEvent, TurnEventName } from "../../queues/events/contract";

interface DeliveryState {
  /** Highest `seq` delivered per log (`turn:<id>` / `action:<id>`). */
  cursors: Map<string, number>;
  /** Serialises deliveries so live events and replays never interleave. */
  chain: Promise<void>;
  /** Deliveries queued on `chain` and not finished: while any is, a live event waits its turn. */
  queued: number;
  /** Logs being read again after a failure: one loop a log, which reads up to the newest event anyway. */
  retrying: Set<string>;
}

/** Turn events carry `{sessionId, turnId}`, action events `{actionId}`; both carry `seq`. */
export type LoggedPayload = Pick<TurnEvent, "seq"> & { sessionId?: string; turnId?: string; actionId?: string | null };

/** Why events were read back from the log rather than delivered live. */
export type ReplayReason = "resume" | "join" | "gap" | "action";

/** Told about every replay, for /metrics: resumes after a reconnect are what ops watch. */
export interface ReplayObserver {
  replayed(reason: ReplayReason, events: number): void;
}

/**
 * After a read from the log fails (Redis failing over: the server's connection gives up on a
 * command within seconds), when to read again. A minute in all covers a Sentinel failover on a
 * loaded machine; past it the client's own resume on reconnect is the remedy. Without these a
 * socket that missed a turn's last events while the feed was cut would wait for them for good.
 */
const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

const states = new WeakMap<Socket, DeliveryState>();
const cursorKey = (ref: StreamRef): string => `${ref.kind}:${ref.id}`;

function stateOf(socket: Socket): DeliveryState {
  let state = states.get(socket);
  if (!state) {
    state = { cursors: new Map(), chain: Promise.resolve(), queued: 0, retrying: new Set() };
    states.set(socket, state);
  }
  return state;
}

export class TurnDelivery {
  constructor(
    private readonly log: TurnEventLog,
    private readonly observer?: ReplayObserver,
    private readonly retryDelaysMs: readonly number[] = RETRY_DELAYS_MS,
  ) {}

  /**
   * Queue one live event for the socket. The common case — nothing queued for the socket, the
   * event the next of its log (or one it already has) — is settled at once, in the tick the
   * message arrived, without a promise per socket and event; anything else (a gap to fill, a
   * replay running) waits its turn in the socket's queue. Returns that wait, if there is one.
   */
  deliver(socket: Socket, event: string, payload: LoggedPayload): Promise<void> | undefined {
    const ref = streamOf(payload);
    const now = stateOf(socket);
    if (now.queued === 0) {
      if (!socket.connected) return undefined;
      const cursor = now.cursors.get(cursorKey(ref)) ?? 0;
      if (payload.seq <= cursor) return undefined;
      if (payload.seq === cursor + 1) {
        try {
          this.emit(socket, now, ref, event, payload);
        } catch (error) {
          // As from the queue: the caller logs it, and the message's other sockets still get theirs.
          return Promise.reject(error);
        }
        return undefined;
      }
    }
    return this.enqueue(socket, async (state) => {
      const cursor = state.cursors.get(cursorKey(ref)) ?? 0;
      if (payload.seq <= cursor) return;
      if (payload.seq > cursor + 1) {
        try {
          // Read first: `observer?.replayed(…, await read)` would skip the read itself when there is no observer.
          const filled = await this.emitFromLog(socket, state, ref, cursor + 1, payload.seq - 1);
          this.observer?.replayed("gap", filled);
        } catch (error) {
          // Emitting this event now would skip the gap for good; fetch it all again once the log answers.
          void this.replayUntilRead(socket, ref, cursor, payload.sessionId).catch(() => undefined);
          throw error;
        }
      }
      this.emit(socket, state, ref, event, payload);
    });
  }

  /**
   * Replay a turn from `afterSeq + 1` up to whatever the log holds now; returns how many were sent.
   * A replay after a seq the client already had is a resume (a reconnect mid-answer).
   */
  async replay(socket: Socket, sessionId: string, turnId: string, afterSeq: number): Promise<number> {
    const sent = await this.replayStream(socket, { kind: "turn", id: turnId }, afterSeq, sessionId);
    this.observer?.replayed(afterSeq > 0 ? "resume" : "join", sent);
    return sent;
  }

  async replayAction(socket: Socket, actionId: string, afterSeq: number): Promise<number> {
    const sent = await this.replayStream(socket, { kind: "action", id: actionId }, afterSeq);
    this.observer?.replayed("action", sent);
    return sent;
  }

  /**
   * After the live feed was cut (the subscriber lost its connection: a Redis failover or
   * restart), fetch from the log whatever each log this socket follows got meanwhile: nothing
   * else would, if what was missed was the turn's last event.
   */
  async catchUp(socket: Socket): Promise<number> {
    // Side by side: on a cluster one shard may still be failing over while the others answer.
    const reads = await Promise.allSettled(
      [...stateOf(socket).cursors.keys()].map((key) => {
        const at = key.indexOf(":");
        return this.replayUntilRead(socket, { kind: key.slice(0, at) as StreamRef["kind"], id: key.slice(at + 1) }, 0);
      }),
    );
    const sent = reads.reduce((sum, read) => sum + (read.status === "fulfilled" ? read.value : 0), 0);
    if (sent > 0) this.observer?.replayed("gap", sent);
    const failed = reads.find((read) => read.status === "rejected");
    if (failed) throw failed.reason;
    return sent;
  }

  /**
   * `replayStream`, read again after each failure (RETRY_DELAYS_MS) while the socket is
   * connected: the feed's catch-up and a gap fill run when Redis has just failed over, when the
   * log may not answer yet. Rejects with the last failure once the delays are spent.
   */
  private async replayUntilRead(socket: Socket, ref: StreamRef, afterSeq: number, sessionId?: string): Promise<number> {
    const state = stateOf(socket);
    const key = cursorKey(ref);
    // Every live event of a streaming turn can find the same gap while the log does not answer: one loop is enough.
    if (state.retrying.has(key)) return 0;
    state.retrying.add(key);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.replayStream(socket, ref, afterSeq, sessionId);
        } catch (error) {
          const delay = this.retryDelaysMs[attempt];
          if (delay === undefined || !socket.connected) throw error;
          await new Promise((resolve) => setTimeout(resolve, delay).unref());
        }
      }
    } finally {
      state.retrying.delete(key);
    }
  }

  private replayStream(socket: Socket, ref: StreamRef, afterSeq: number, sessionId?: string): Promise<number> {
    let sent = 0;
    return this.enqueue(socket, async (state) => {
      const cursor = Math.max(state.cursors.get(cursorKey(ref)) ?? 0, afterSeq);
      state.cursors.set(cursorKey(ref), cursor);
      sent = await this.emitFromLog(socket, state, ref, cursor + 1, undefined, sessionId);
    }).then(() => sent);
  }

  private enqueue(socket: Socket, task: (state: DeliveryState) => Promise<void>): Promise<void> {
    const state = stateOf(socket);
    state.queued += 1;
    const run = state.chain
      .then(() => (socket.connected ? task(state) : undefined))
      .finally(() => {
        state.queued -= 1;
      });
    // A failed read must not wedge the socket's queue; the next event retries the gap.
    state.chain = run.catch(() => undefined);
    return run;
  }

  private async emitFromLog(socket: Socket, state: DeliveryState, ref: StreamRef, fromSeq: number, toSeq?: number, sessionId?: string): Promise<number> {
    const events = await this.log.readStream(ref, fromSeq, toSeq);
    let sent = 0;
    for (const { event, payload } of events) {
      if (sessionId && payload.sessionId !== sessionId) continue;
      if (payload.seq <= (state.cursors.get(cursorKey(ref)) ?? 0)) continue;
      this.emit(socket, state, ref, event, payload);
      sent += 1;
    }
    return sent;
  }

  private emit(socket: Socket, state: DeliveryState, ref: StreamRef, event: TurnEventName | string, payload: LoggedPayload): void {
    state.cursors.set(cursorKey(ref), payload.seq);
    (socket.emit as (event: string, payload: unknown) => boolean)(event, payload);
  }
}
