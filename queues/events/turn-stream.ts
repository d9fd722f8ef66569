/**
 * Per-turn event log in Redis. Each event is appended to a capped stream keyed by turn, with
 * the stream id `<seq>-0`, and published on one channel for live delivery, in a single Lua
 * call, so the log and the live feed can never disagree about what `seq` an event has.
 */
import type { Redis } from "ioredis";
import type { TurnEvent, TurnEventEnvelope, TurnEventName, TurnEventPayloads } from "./contract";
import { roomForSession } from "./contract";

export const TURN_EVENTS_CHANNEL = "skillnet:turn-events";
const streamKey = (turnId: string): string => `skillnet:turn:${turnId}:events`;
const seqKey = (turnId: string): string => `skillnet:turn:${turnId}:seq`;
const latestTurnKey = (sessionId: string): string => `skillnet:session:${sessionId}:latest-turn`;

const APPEND_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], seq .. '-0', 'event', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], '{"room":' .. cjson.encode(ARGV[6]) .. ',"event":' .. cjson.encode(ARGV[1]) .. ',"seq":' .. seq .. ',"data":' .. ARGV[2] .. '}')
return seq
`;

export interface TurnStreamOptions {
  ttlSeconds: number;
  maxEvents: number;
}

/** One entry of a turn's log: the event name and the payload a client receives. */
export interface LoggedTurnEvent {
  event: TurnEventName;
  payload: TurnEvent;
}

export class TurnEventLog {
  constructor(
    private readonly redis: Redis,
    private readonly options: TurnStreamOptions,
  ) {}

  /** Appends one event to the turn's log and publishes it; returns its `seq`. */
  async append<E extends TurnEventName>(sessionId: string, turnId: string, event: E, payload: TurnEventPayloads[E]): Promise<number> {
    const data = JSON.stringify({ ...payload, sessionId, turnId });
    const seq = await this.redis.eval(
      APPEND_SCRIPT,
      2,
      seqKey(turnId),
      streamKey(turnId),
      event,
      data,
      String(this.options.maxEvents),
      String(this.options.ttlSeconds),
      TURN_EVENTS_CHANNEL,
      roomForSession(sessionId),
    );
    return Number(seq);
  }

  /** Events with `fromSeq <= seq <= toSeq` (inclusive), oldest first. */
  async read(turnId: string, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
    const entries = await this.redis.xrange(streamKey(turnId), `${Math.max(1, fromSeq)}-0`, toSeq === undefined ? "+" : `${toSeq}-0`);
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
