/**
 * Where a turn's or an admin action's events live in Redis: the log an event belongs to, its
 * stream key, the marker a batch leaves behind Sentinel or on a cluster, and the channel the
 * events are published on.
 */
import { channelName, redisKey } from "../keys";

export const TURN_EVENTS_CHANNEL = channelName("turnEventsChannel");

/** Which log an event belongs to: a chat turn's, or an admin action's. */
export interface StreamRef {
  kind: "turn" | "action";
  id: string;
}

// `:log`, not the `:events` of the earlier `<seq>-0` ids: a log started by an older worker is never
// continued with the new ids. On a cluster the keys carry their owner's hash tag (queues/slots.ts).
export const streamKey = (cluster: boolean, ref: StreamRef): string =>
  ref.kind === "turn" ? redisKey("turnLog", cluster, { turnId: ref.id }) : redisKey("actionLog", cluster, { actionId: ref.id });
export const batchMarkerKey = (cluster: boolean, ownerId: string, batchId: string): string => redisKey("appendBatch", cluster, { batchId }, ownerId);

/** The log an event payload belongs to, read from the ids it carries. */
export function streamOf(payload: { turnId?: string; actionId?: string | null }): StreamRef {
  return payload.turnId ? { kind: "turn", id: payload.turnId } : { kind: "action", id: payload.actionId ?? "" };
}
