/**
 * Per-turn (and per-admin-action) event logs in Redis. Each event is appended to a capped stream
 * keyed by its turn or action, with the stream id `<seq>-0`, and published on one channel for
 * live delivery, in a single Lua call, so the log and the live feed can never disagree about
 * what `seq` an event has.
 */
import type { Redis } from "ioredis";
import type { ActionEventName, ActionEventPayloads, TurnEvent, TurnEventEnvelope, TurnEventName, TurnEventPayloads } from "./contract";
import { roomForSession, roomForUser } from "./contract";

export const TURN_EVENTS_CHANNEL = "skillnet:turn-events";

/** Which log an event belongs to: a chat turn's, or an admin action's. */
export interface StreamRef {
  kind: "turn" | "action";
  id: string;
}

const streamKey = (ref: StreamRef): string => `skillnet:${ref.kind}:${ref.id}:events`;
const seqKey = (ref: StreamRef): string => `skillnet:${ref.kind}:${ref.id}:seq`;
const latestTurnKey = (sessionId: string): string => `skillnet:session:${sessionId}:latest-turn`;

/** The log an event payload belongs to, read from the ids it carries. */
export function streamOf(payload: { turnId?: string; actionId?: string | null }): StreamRef {
  return payload.turnId ? { kind: "turn", id: payload.turnId } : { kind: "action", id: payload.actionId ?? "" };
}

// EXPIRE only on a log's first event and every 64th after: refreshing both keys on every token
// was a third of the Redis commands a streamed answer costs (bench/results.md, measure 2).
const APPEND_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], seq .. '-0', 'event', ARGV[1], 'data', ARGV[2])
if seq == 1 or seq % 64 == 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
redis.call('PUBLISH', ARGV[5], '{"room":' .. cjson.encode(ARGV[6]) .. ',"event":' .. cjson.encode(ARGV[1]) .. ',"seq":' .. seq .. ',"data":' .. ARGV[2] .. '}')
return seq
`;

/** Sent by SHA once Redis has it (ioredis falls back to the full script after a NOSCRIPT). */
const APPEND_COMMAND = "skillnetAppendEvent";
type AppendCommand = (
  seqKey: string,
  streamKey: string,
  event: string,
  data: string,
  maxEvents: string,
  ttl: string,
  channel: string,
  room: string,
) => Promise<number>;

export interface TurnStreamOptions {
  ttlSeconds: number;
  maxEvents: number;
}

/** One entry of a log: the event name and the payload a client receives. */
export interface LoggedTurnEvent {
  event: TurnEventName;
  payload: TurnEvent;
}

/** Action logs outlive turn logs: an action may be confirmed or resumed a day after it was proposed. */
const ACTION_LOG_TTL_SECONDS = 7 * 24 * 3600;

export class TurnEventLog {
  private readonly appendScript: AppendCommand;

  constructor(
    private readonly redis: Redis,
    private readonly options: TurnStreamOptions,
  ) {
    if (!(APPEND_COMMAND in redis)) redis.defineCommand(APPEND_COMMAND, { numberOfKeys: 2, lua: APPEND_SCRIPT });
    this.appendScript = (redis as unknown as Record<string, AppendCommand>)[APPEND_COMMAND]!.bind(redis);
  }

  /** Appends one event to the turn's log and publishes it to the session room; returns its `seq`. */
  async append<E extends TurnEventName>(sessionId: string, turnId: string, event: E, payload: TurnEventPayloads[E]): Promise<number> {
    return this.appendTo({ kind: "turn", id: turnId }, roomForSession(sessionId), event, { ...payload, sessionId, turnId }, this.options.ttlSeconds);
  }

  /** Appends one event to an admin action's log and publishes it to `user:<userId>`. */
  async appendAction<E extends ActionEventName>(actionId: string, userId: string, event: E, payload: ActionEventPayloads[E]): Promise<number> {
    return this.appendTo(
      { kind: "action", id: actionId },
      roomForUser(userId),
      event,
      { ...payload, actionId },
      Math.max(this.options.ttlSeconds, ACTION_LOG_TTL_SECONDS),
    );
  }

  private async appendTo(ref: StreamRef, room: string, event: string, data: object, ttlSeconds: number): Promise<number> {
    const seq = await this.appendScript(
      seqKey(ref),
      streamKey(ref),
      event,
      JSON.stringify(data),
      String(this.options.maxEvents),
      String(ttlSeconds),
      TURN_EVENTS_CHANNEL,
      room,
    );
    return Number(seq);
  }

  /** Events of a turn with `fromSeq <= seq <= toSeq` (inclusive), oldest first. */
  async read(turnId: string, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    return this.readStream({ kind: "turn", id: turnId }, fromSeq, toSeq);
  }

  /** The same for any log; action events come back in the same shape (`payload.actionId` set). */
  async readStream(ref: StreamRef, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    const entries = await this.redis.xrange(streamKey(ref), `${Math.max(1, fromSeq)}-0`, toSeq === undefined ? "+" : `${toSeq}-0`);
    return entries.map(([id, fields]) => {
      const seq = Number(id.split("-")[0]);
      const record: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
      return { event: record.event as TurnEventName, payload: { ...(JSON.parse(record.data ?? "{}") as object), seq } as TurnEvent };
    });
  }

  /** The server records each session's newest turn so a late joiner knows what to replay. */
  async setLatestTurn(sessionId: string, turnId: string): Promise<void> {
    await this.redis.set(latestTurnKey(sessionId), turnId, "EX", this.options.ttlSeconds);
  }

  async latestTurn(sessionId: string): Promise<string | null> {
    return this.redis.get(latestTurnKey(sessionId));
  }

  async forgetSession(sessionId: string): Promise<void> {
    await this.redis.del(latestTurnKey(sessionId));
  }
}

export function parseEnvelope(message: string): TurnEventEnvelope | null {
  try {
    const parsed = JSON.parse(message) as TurnEventEnvelope;
    return typeof parsed.seq === "number" && typeof parsed.room === "string" ? parsed : null;
  } catch {
    return null;
  }
}
