/**
 * The process's queue of events waiting for the next append call: events emitted in one pass of
 * the event loop leave together at its end, whatever is emitted while a call is in flight travels
 * in the next, and on a cluster a batch is sent as one call per owner tag (append-script.ts).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { groupByTag, keyTagOf } from "../slots";
import { type AppendBatchCommand, appendBatchCommand, appendThenPublish } from "./append-script";
import { batchMarkerKey, type StreamRef, streamKey, TURN_EVENTS_CHANNEL } from "./stream-keys";

/** Resolves in this pass's check phase (setImmediate): after every I/O callback the poll phase had ready. */
const afterPollPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Events per script call: bounds one call's time inside Redis (≈ 2 µs per XADD). */
const MAX_BATCH = 256;

/** An event waiting for the next script call. */
export interface QueuedEvent {
  /** The turn or action the event's log belongs to: on a cluster, events are sent per owner tag. */
  owner: string;
  key: string;
  /** Set on a turn's `token` event, which later tokens of the turn may join. */
  tokenOf: string | null;
  room: string;
  event: string;
  data: Record<string, unknown>;
  ttlSeconds: number;
  /** The `traceparent` published with the event (a turn's first token, when traced), else "". */
  trace: string;
  settled: Promise<number>;
  resolve(seq: number): void;
  reject(error: unknown): void;
}

export class AppendBatcher {
  private readonly appendBatch: AppendBatchCommand;
  private queue: QueuedEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** A turn's queued `token` event that later tokens may still join (it is the turn's newest queued event). */
  private readonly openTokens = new Map<string, QueuedEvent>();

  constructor(
    private readonly redis: Redis,
    private readonly options: { maxEvents: number; replicaWaitMs?: number },
  ) {
    this.appendBatch = appendBatchCommand(redis);
  }

  /** The turn's queued `token` event later tokens may still join, if it is the turn's newest queued event. */
  openToken(turnId: string): QueuedEvent | undefined {
    return this.openTokens.get(turnId);
  }

  /** The turn's next event is not a token: no later token joins the one queued before it. */
  closeToken(turnId: string): void {
    this.openTokens.delete(turnId);
  }

  /** Queues a turn's token event, which later tokens of the turn may join while it waits. */
  queueToken(queued: QueuedEvent): void {
    this.queue.push(queued);
    this.openTokens.set(queued.tokenOf!, queued);
    this.startFlushing();
  }

  /** Resolves once every event queued so far is in its log (or has failed). */
  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Queues one event for the next call; resolves with its `seq`. */
  enqueue(ref: StreamRef, room: string, event: string, data: Record<string, unknown>, ttlSeconds: number, trace = ""): Promise<number> {
    const queued = this.queuedEvent(ref, room, event, data, ttlSeconds, trace, null);
    this.queue.push(queued);
    this.startFlushing();
    return queued.settled;
  }

  /** An event for the log of `ref`, not queued yet, with the promise its `seq` settles. */
  queuedEvent(
    ref: StreamRef,
    room: string,
    event: string,
    data: Record<string, unknown>,
    ttlSeconds: number,
    trace: string,
    tokenOf: string | null,
  ): QueuedEvent {
    let resolve!: (seq: number) => void;
    let reject!: (error: unknown) => void;
    const settled = new Promise<number>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { owner: ref.id, key: streamKey(this.redis.isCluster, ref), tokenOf, room, event, data, ttlSeconds, trace, settled, resolve, reject };
  }

  private startFlushing(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      // Queued after the loop's last check but before this ran: nobody else will send it.
      if (this.queue.length > 0) this.startFlushing();
    });
  }

  private async flush(): Promise<void> {
    // Each call leaves in the event loop's check phase, not on the microtask queue: every event
    // emitted in the same pass of the loop (each model stream's chunk is its own I/O callback, so
    // on a microtask the first chunk of a poll phase went alone and the rest waited for its
    // reply) goes in one call, and after a reply so does everything the same poll phase emitted.
    await afterPollPhase();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      for (const queued of batch) if (queued.tokenOf && this.openTokens.get(queued.tokenOf) === queued) this.openTokens.delete(queued.tokenOf);
      // A script runs in one slot: on a cluster, one call per owner tag (at most KEY_TAGS of them), side by side.
      const groups = this.redis.isCluster ? [...groupByTag(batch, (queued) => keyTagOf(queued.owner)).values()] : [batch];
      await Promise.all(groups.map((group) => this.send(group)));
      if (this.queue.length > 0) await afterPollPhase();
    }
  }

  private async send(group: QueuedEvent[]): Promise<void> {
    const cluster = this.redis.isCluster;
    const waitMs = this.options.replicaWaitMs ?? 0;
    // On a cluster the script cannot publish to a channel of another slot: it hands the message back, as behind Sentinel.
    const batchId = waitMs > 0 || cluster ? randomUUID() : "";
    const owner = group[0]!.owner;
    const keys = group.map((q) => q.key);
    if (batchId) keys.push(batchMarkerKey(cluster, owner, batchId));
    const args = [String(keys.length), ...keys, String(this.options.maxEvents), TURN_EVENTS_CHANNEL, batchId];
    for (const queued of group) args.push(queued.event, JSON.stringify(queued.data), queued.room, String(queued.ttlSeconds), queued.trace);
    try {
      const seqs = batchId ? await appendThenPublish(this.redis, args, waitMs, owner) : await this.appendBatch(...args);
      group.forEach((queued, i) => queued.resolve(Number(seqs[i])));
    } catch (error) {
      for (const queued of group) queued.reject(error);
    }
  }
}
