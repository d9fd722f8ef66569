/**
 * Per-turn (and per-admin-action) event logs in Redis. Each event is appended to a capped stream
 * keyed by its turn or action, with the stream id `0-<seq>` (Redis numbers the entries itself,
 * so no counter key is needed), and published for live delivery in the same Lua call, so the log
 * and the live feed can never disagree about what `seq` an event has.
 *
 * Appends are batched per process: events emitted in one pass of the event loop go out together
 * at its end (the check phase), and whatever is emitted while that call is in flight — any
 * turn's, any action's — travels in the next call, which appends each event to its own log and
 * publishes them all as one message. Tokens of one turn queued back to back become one `token`
 * event. Nothing else waits on a timer, so a quiet process adds no delay beyond its loop pass, while a
 * busy one pays one script call and one PUBLISH per round trip instead of per event
 * (bench/optimisations.md, sections 1 and 12).
 *
 * While the process streams many turns at once (more than `framesFromStreams`), a turn's tokens
 * also travel in frames (`frameMs`, STREAM_FRAME_MS): its first token, and any token after a quiet
 * frame, leave at once; a token that comes sooner after the turn's previous token event waits
 * until a frame has passed since it, and every token of the turn that arrives meanwhile joins it.
 * A model streaming 50 tokens a second then costs one log entry, one envelope, one server fan-out
 * and one socket write per two tokens instead of per token, for about one token gap of added lag
 * (bench/optimisations.md, section 16). Any other event of the turn sends its held tokens first,
 * so order and exactly-once are the log's as before.
 *
 * This module is the writer's side and its token frames; the rest is beside it: the keys and the
 * channel (stream-keys.ts), the queue of events waiting for the next call (append-batch.ts), the
 * Lua append with its trim and publish (append-script.ts), and reading back (stream-reader.ts).
 */
import type { Redis } from "ioredis";
import type { ActionEventName, ActionEventPayloads, TurnEventName, TurnEventPayloads } from "./contract";
import { roomForSession, roomForUser } from "./contract";
import { latestTurnKey } from "../turn-keys";
import { AppendBatcher, type QueuedEvent } from "./append-batch";
import type { StreamRef } from "./stream-keys";
import { type LoggedTurnEvent, readStream } from "./stream-reader";

/** Streaming turns remembered for their frames before the ones past their frame are swept out. */
const STALE_SWEEP_AT = 5_000;

export interface TurnStreamOptions {
  ttlSeconds: number;
  maxEvents: number;
  /**
   * Behind Sentinel: how long an append waits for a replica to hold it (`WAIT 1`) before it is
   * published. A failover promotes a replica; an event only the dead master held would get its
   * seq again from the new one, and a client that had already seen the first would skip the second.
   * 0 or unset: publish in the same script call, as on a single Redis.
   */
  replicaWaitMs?: number;
  /** A turn's token events are at least this far apart (its first and any after a quiet spell go at once); 0 or unset: no frames. */
  frameMs?: number;
  /**
   * Frames apply only while more than this many of the process's turns are streaming: a quiet
   * process sends every token at once (a lone stream's tokens would only wait), a busy one saves
   * the work per event. Default FRAMES_FROM_STREAMS.
   */
  framesFromStreams?: number;
}

/** Streaming turns in one process above which tokens travel in frames (measured: bench/optimisations.md, section 16). */
export const FRAMES_FROM_STREAMS = 16;

/** Action logs outlive turn logs: an action may be confirmed or resumed a day after it was proposed. */
const ACTION_LOG_TTL_SECONDS = 7 * 24 * 3600;

export class TurnEventLog {
  private readonly batcher: AppendBatcher;
  /** A turn's token event held for its frame, not queued yet, with the timer that queues it. */
  private readonly heldTokens = new Map<string, { queued: QueuedEvent; timer: NodeJS.Timeout }>();
  /** When each streaming turn's newest token event was queued (performance.now()); a turn's entry goes with its next other event. */
  private readonly lastTokenAt = new Map<string, number>();
  private sweptAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: TurnStreamOptions,
  ) {
    this.batcher = new AppendBatcher(redis, options);
  }

  /** Appends one event to the turn's log and publishes it to the session room; resolves with its `seq`. */
  async append<E extends TurnEventName>(sessionId: string, turnId: string, event: E, payload: TurnEventPayloads[E]): Promise<number> {
    this.releaseTokens(turnId);
    this.batcher.closeToken(turnId);
    this.lastTokenAt.delete(turnId);
    return this.batcher.enqueue({ kind: "turn", id: turnId }, roomForSession(sessionId), event, { ...payload, sessionId, turnId }, this.options.ttlSeconds);
  }

  /**
   * Queues streamed text: joins the turn's `token` event still waiting in the queue, if it is the
   * turn's newest, else queues a new one. Resolves with the seq of the event that carried it.
   * `trace` (the turn's first token, when traced) travels with the event to the servers.
   */
  appendToken(sessionId: string, turnId: string, content: string, trace = ""): Promise<number> {
    const open = this.batcher.openToken(turnId) ?? this.heldTokens.get(turnId)?.queued;
    if (open) {
      open.data.content = `${open.data.content as string}${content}`;
      open.trace ||= trace;
      return open.settled;
    }
    const queued = this.tokenEvent(sessionId, turnId, content, trace);
    const frameMs = this.options.frameMs ?? 0;
    const now = performance.now();
    const last = this.lastTokenAt.get(turnId);
    const busy = this.lastTokenAt.size > (this.options.framesFromStreams ?? FRAMES_FROM_STREAMS);
    if (frameMs > 0 && busy && last !== undefined && now - last < frameMs) {
      // Within the turn's frame: held until the frame has passed, gathering the tokens that come meanwhile.
      const timer = setTimeout(() => this.releaseTokens(turnId), last + frameMs - now);
      this.heldTokens.set(turnId, { queued, timer });
      return queued.settled;
    }
    this.queueToken(queued);
    return queued.settled;
  }

  /** Queues a turn's held tokens now (before its next other event, or when a worker stops). */
  releaseTokens(turnId: string): void {
    const held = this.heldTokens.get(turnId);
    if (!held) return;
    clearTimeout(held.timer);
    this.heldTokens.delete(turnId);
    this.queueToken(held.queued);
  }

  /** A turn's token event, not queued yet. */
  private tokenEvent(sessionId: string, turnId: string, content: string, trace: string): QueuedEvent {
    return this.batcher.queuedEvent(
      { kind: "turn", id: turnId },
      roomForSession(sessionId),
      "token",
      { content, sessionId, turnId },
      this.options.ttlSeconds,
      trace,
      turnId,
    );
  }

  private queueToken(queued: QueuedEvent): void {
    const turnId = queued.tokenOf!;
    const frameMs = this.options.frameMs ?? 0;
    if (frameMs > 0) {
      const now = performance.now();
      // A turn whose stream ended without another event (its job handed back) leaves its entry: past a frame it means nothing.
      if (this.lastTokenAt.size >= STALE_SWEEP_AT && now - this.sweptAt >= 1_000) {
        this.sweptAt = now;
        for (const [turn, at] of this.lastTokenAt) if (now - at >= frameMs) this.lastTokenAt.delete(turn);
      }
      this.lastTokenAt.set(turnId, now);
    }
    this.batcher.queueToken(queued);
  }

  /** Appends one event to an admin action's log and publishes it to `user:<userId>`. */
  async appendAction<E extends ActionEventName>(actionId: string, userId: string, event: E, payload: ActionEventPayloads[E]): Promise<number> {
    return this.batcher.enqueue(
      { kind: "action", id: actionId },
      roomForUser(userId),
      event,
      { ...payload, actionId },
      Math.max(this.options.ttlSeconds, ACTION_LOG_TTL_SECONDS),
    );
  }

  /** Resolves once every event queued or held so far is in its log (or has failed). */
  async flushed(): Promise<void> {
    for (const turnId of [...this.heldTokens.keys()]) this.releaseTokens(turnId);
    await this.batcher.flushed();
  }

  /** Events of a turn with `fromSeq <= seq <= toSeq` (inclusive), oldest first. */
  async read(turnId: string, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    return this.readStream({ kind: "turn", id: turnId }, fromSeq, toSeq);
  }

  /** The same for any log; action events come back in the same shape (`payload.actionId` set). */
  async readStream(ref: StreamRef, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    return readStream(this.redis, ref, fromSeq, toSeq);
  }

  /** The server records each session's newest turn so a late joiner knows what to replay. */
  async setLatestTurn(sessionId: string, turnId: string): Promise<void> {
    await this.redis.set(latestTurnKey(this.redis.isCluster, sessionId), turnId, "EX", this.options.ttlSeconds);
  }

  async latestTurn(sessionId: string): Promise<string | null> {
    return this.redis.get(latestTurnKey(this.redis.isCluster, sessionId));
  }

  async forgetSession(sessionId: string): Promise<void> {
    await this.redis.del(latestTurnKey(this.redis.isCluster, sessionId));
  }
}
