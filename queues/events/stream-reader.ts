/**
 * Reading the events back: a log's entries for replay (a late joiner, a reconnect), and the
 * envelopes of a message published on the live feed.
 */
import type { Redis } from "ioredis";
import type { TurnEvent, TurnEventEnvelope, TurnEventName } from "./contract";
import { type StreamRef, streamKey } from "./stream-keys";

/** One entry of a log: the event name and the payload a client receives. */
export interface LoggedTurnEvent {
  event: TurnEventName;
  payload: TurnEvent;
}

/** Events of a log with `fromSeq <= seq <= toSeq` (inclusive), oldest first; action events come back in the same shape (`payload.actionId` set). */
export async function readStream(redis: Redis, ref: StreamRef, fromSeq: number, toSeq?: number): Promise<LoggedTurnEvent[]> {
  const entries = await redis.xrange(streamKey(redis.isCluster, ref), `0-${Math.max(1, fromSeq)}`, toSeq === undefined ? "+" : `0-${toSeq}`);
  return entries.map(([id, fields]) => {
    const seq = Number(id.split("-")[1]);
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
    return { event: record.event as TurnEventName, payload: { ...(JSON.parse(record.data ?? "{}") as object), seq } as TurnEvent };
  });
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
