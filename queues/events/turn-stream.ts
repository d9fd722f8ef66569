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
 */
import { randomUUID } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import type { ActionEventName, ActionEventPayloads, TurnEvent, TurnEventEnvelope, TurnEventName, TurnEventPayloads } from "./contract";
import { roomForSession, roomForUser } from "./contract";
import { channelName, redisKey } from "../keys";
import { groupByTag, keyTagOf } from "../slots";
import { latestTurnKey } from "../turn-keys";
import { feedChannel, publishFeed } from "./feed";

export const TURN_EVENTS_CHANNEL = channelName("turnEventsChannel");

/** Which log an event belongs to: a chat turn's, or an admin action's. */
export interface StreamRef {
  kind: "turn" | "action";
  id: string;
}

// `:log`, not the `:events` of the earlier `<seq>-0` ids: a log started by an older worker is never
// continued with the new ids. On a cluster the keys carry their owner's hash tag (queues/slots.ts).
const streamKey = (cluster: boolean, ref: StreamRef): string =>
  ref.kind === "turn" ? redisKey("turnLog", cluster, { turnId: ref.id }) : redisKey("actionLog", cluster, { actionId: ref.id });
const batchMarkerKey = (cluster: boolean, ownerId: string, batchId: string): string => redisKey("appendBatch", cluster, { batchId }, ownerId);

/** The log an event payload belongs to, read from the ids it carries. */
export function streamOf(payload: { turnId?: string; actionId?: string | null }): StreamRef {
  return payload.turnId ? { kind: "turn", id: payload.turnId } : { kind: "action", id: payload.actionId ?? "" };
}

/**
 * KEYS: one log per event, then (with a batch id) the batch's marker. ARGV: max events per log,
 * channel, batch id, then per event its name, JSON data, room, TTL and trace context (a W3C
 * `traceparent`, or empty: published with the event for the server's delivery span, never logged). `0-*` lets Redis (7.0+) number the entries 0-1, 0-2, … per log. EXPIRE
 * runs only on a log's first event and every 64th after: refreshing it on every token was a third
 * of the commands a streamed answer cost (bench/optimisations.md). Returns the seqs in order.
 *
 * With a batch id (behind Sentinel) the script publishes nothing and returns the message first,
 * then the seqs: the caller publishes once a replica holds the entries. It also remembers its
 * reply for a minute under the batch id, so the same batch sent again (ioredis resends a command
 * whose reply a dying master never sent) appends nothing twice and answers as the first time.
 */
const APPEND_BATCH_SCRIPT = `
local batch = ARGV[3]
local logs = #KEYS
if batch ~= '' then
  logs = logs - 1
  local prior = redis.call('GET', KEYS[#KEYS])
  if prior then return cjson.decode(prior) end
end
local seqs = {}
local published = {}
for i = 1, logs do
  local at = 3 + (i - 1) * 5
  local event, data, room, trace = ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 5]
  local id = redis.call('XADD', KEYS[i], 'MAXLEN', '~', ARGV[1], '0-*', 'event', event, 'data', data)
  local seq = tonumber(string.sub(id, 3))
  if seq == 1 or seq % 64 == 0 then redis.call('EXPIRE', KEYS[i], ARGV[at + 4]) end
  seqs[i] = seq
  local traced = ''
  if trace ~= '' then traced = ',"trace":' .. cjson.encode(trace) end
  published[i] = '{"room":' .. cjson.encode(room) .. ',"event":' .. cjson.encode(event) .. ',"seq":' .. seq .. traced .. ',"data":' .. data .. '}'
end
local message = '[' .. table.concat(published, ',') .. ']'
if batch == '' then
  redis.call('PUBLISH', ARGV[2], message)
  return seqs
end
table.insert(seqs, 1, message)
redis.call('SET', KEYS[#KEYS], cjson.encode(seqs), 'EX', 60)
return seqs
`;

/** Sent by SHA once Redis has it (ioredis falls back to the full script after a NOSCRIPT). */
const APPEND_BATCH_COMMAND = "skillnetAppendEvents";
type AppendBatchCommand = (...keysThenArgs: string[]) => Promise<Array<number | string>>;

/**
 * The replies a cluster gives while its slots move (a failover): the error codes Redis starts
 * them with. Retried every 200 ms for up to 15 s, past the ~4 s a replica takes to be promoted.
 */
const CLUSTER_REDIRECT = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;
const REDIRECT_ATTEMPTS = 75;
const REDIRECT_DELAY_MS = 200;

/** Resolves in this pass's check phase (setImmediate): after every I/O callback the poll phase had ready. */
const afterPollPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Streaming turns remembered for their frames before the ones past their frame are swept out. */
const STALE_SWEEP_AT = 5_000;

/** Events per script call: bounds one call's time inside Redis (≈ 2 µs per XADD). */
const MAX_BATCH = 256;

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

/** One entry of a log: the event name and the payload a client receives. */
export interface LoggedTurnEvent {
  event: TurnEventName;
  payload: TurnEvent;
}

/** Action logs outlive turn logs: an action may be confirmed or resumed a day after it was proposed. */
const ACTION_LOG_TTL_SECONDS = 7 * 24 * 3600;

/** An event waiting for the next script call. */
interface QueuedEvent {
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

export class TurnEventLog {
  private readonly appendBatch: AppendBatchCommand;
  private queue: QueuedEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** A turn's queued `token` event that later tokens may still join (it is the turn's newest queued event). */
  private readonly openTokens = new Map<string, QueuedEvent>();
  /** A turn's token event held for its frame, not queued yet, with the timer that queues it. */
  private readonly heldTokens = new Map<string, { queued: QueuedEvent; timer: NodeJS.Timeout }>();
  /** When each streaming turn's newest token event was queued (performance.now()); a turn's entry goes with its next other event. */
  private readonly lastTokenAt = new Map<string, number>();
  private sweptAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: TurnStreamOptions,
  ) {
    if (!(APPEND_BATCH_COMMAND in redis)) redis.defineCommand(APPEND_BATCH_COMMAND, { lua: APPEND_BATCH_SCRIPT });
    const command = (redis as unknown as Record<string, AppendBatchCommand>)[APPEND_BATCH_COMMAND]!;
    this.appendBatch = command.bind(redis);
  }

  /** Appends one event to the turn's log and publishes it to the session room; resolves with its `seq`. */
  async append<E extends TurnEventName>(sessionId: string, turnId: string, event: E, payload: TurnEventPayloads[E]): Promise<number> {
    this.releaseTokens(turnId);
    this.openTokens.delete(turnId);
    this.lastTokenAt.delete(turnId);
    return this.enqueue({ kind: "turn", id: turnId }, roomForSession(sessionId), event, { ...payload, sessionId, turnId }, this.options.ttlSeconds);
  }

  /**
   * Queues streamed text: joins the turn's `token` event still waiting in the queue, if it is the
   * turn's newest, else queues a new one. Resolves with the seq of the event that carried it.
   * `trace` (the turn's first token, when traced) travels with the event to the servers.
   */
  appendToken(sessionId: string, turnId: string, content: string, trace = ""): Promise<number> {
    const open = this.openTokens.get(turnId) ?? this.heldTokens.get(turnId)?.queued;
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
    return this.queuedEvent(
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
    this.queue.push(queued);
    this.openTokens.set(turnId, queued);
    this.startFlushing();
  }

  /** Appends one event to an admin action's log and publishes it to `user:<userId>`. */
  async appendAction<E extends ActionEventName>(actionId: string, userId: string, event: E, payload: ActionEventPayloads[E]): Promise<number> {
    return this.enqueue(
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
    while (this.flushing) await this.flushing;
  }

  private enqueue(ref: StreamRef, room: string, event: string, data: Record<string, unknown>, ttlSeconds: number, trace = ""): Promise<number> {
    const queued = this.queuedEvent(ref, room, event, data, ttlSeconds, trace, null);
    this.queue.push(queued);
    this.startFlushing();
    return queued.settled;
  }

  private queuedEvent(
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
      const seqs = batchId ? await this.appendThenPublish(args, waitMs, owner) : await this.appendBatch(...args);
      group.forEach((queued, i) => queued.resolve(Number(seqs[i])));
    } catch (error) {
      for (const queued of group) queued.reject(error);
    }
  }

  /**
   * A batch id'd append: the script and `WAIT 1` in one pipeline (so on a cluster both go to the
   * node that holds the logs), then the message is published; returns the seqs.
   */
  private async appendThenPublish(args: string[], waitMs: number, owner: string): Promise<Array<number | string>> {
    let reply: unknown;
    for (let attempt = 1; ; attempt++) {
      const pipeline = this.redis.pipeline();
      (pipeline as unknown as Record<string, AppendBatchCommand>)[APPEND_BATCH_COMMAND]!(...args);
      // Past the bound (no replica up) the event goes out anyway: a stream that stops is worse.
      if (waitMs > 0) pipeline.wait(1, waitMs);
      const [[error, result] = [null, null]] = await pipeline.exec().then(
        (results) => results ?? [],
        (failed: Error) => [[failed, null] as [Error, null]],
      );
      reply = result;
      if (!error) break;
      // ioredis follows a cluster's redirect for a pipeline only when every command got it, and
      // WAIT (no key) answers anywhere: follow it here, with the slot map read afresh. Resending
      // is safe: the batch id applies it once.
      if (!this.redis.isCluster || attempt >= REDIRECT_ATTEMPTS || !CLUSTER_REDIRECT.test(error.message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, REDIRECT_DELAY_MS));
      await new Promise<void>((resolve) => (this.redis as unknown as Cluster).refreshSlotsCache(() => resolve()));
    }
    const [message, ...seqs] = reply as Array<number | string>;
    await publishFeed(this.redis, feedChannel(this.redis.isCluster, TURN_EVENTS_CHANNEL, owner), String(message));
    return seqs;
  }

  /** Events of a turn with `fromSeq <= seq <= toSeq` (inclusive), oldest first. */
  async read(turnId: string, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    return this.readStream({ kind: "turn", id: turnId }, fromSeq, toSeq);
  }

  /** The same for any log; action events come back in the same shape (`payload.actionId` set). */
  async readStream(ref: StreamRef, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    const entries = await this.redis.xrange(streamKey(this.redis.isCluster, ref), `0-${Math.max(1, fromSeq)}`, toSeq === undefined ? "+" : `0-${toSeq}`);
    return entries.map(([id, fields]) => {
      const seq = Number(id.split("-")[1]);
      const record: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
      return { event: record.event as TurnEventName, payload: { ...(JSON.parse(record.data ?? "{}") as object), seq } as TurnEvent };
    });
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

/** The envelopes of one published message: a batch (an array), or a single envelope from an older worker. */
export function parseEnvelopes(message: string): TurnEventEnvelope[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return [];
  }
  const envelopes = Array.isArray(parsed) ? parsed : [parsed];
  return envelopes.filter(
    (envelope): envelope is TurnEventEnvelope =>
      typeof envelope === "object" && envelope !== null && typeof envelope.seq === "number" && typeof envelope.room === "string",
  );
}
