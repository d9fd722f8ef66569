/**
 * The one Redis call that appends a batch of events to their logs (capped, with their TTL) and
 * publishes them, and — behind Sentinel or on a cluster — the pipeline that appends, waits for a
 * replica and only then publishes, following a cluster's redirects.
 */
import type { Cluster, Redis } from "ioredis";
import { feedChannel, publishFeed } from "./feed";
import { TURN_EVENTS_CHANNEL } from "./stream-keys";

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
export type AppendBatchCommand = (...keysThenArgs: string[]) => Promise<Array<number | string>>;

/**
 * The replies a cluster gives while its slots move (a failover): the error codes Redis starts
 * them with. Retried every 200 ms for up to 15 s, past the ~4 s a replica takes to be promoted.
 */
const CLUSTER_REDIRECT = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;
const REDIRECT_ATTEMPTS = 75;
const REDIRECT_DELAY_MS = 200;

/** The append script as a command of this connection (defined once per connection). */
export function appendBatchCommand(redis: Redis): AppendBatchCommand {
  if (!(APPEND_BATCH_COMMAND in redis)) redis.defineCommand(APPEND_BATCH_COMMAND, { lua: APPEND_BATCH_SCRIPT });
  const command = (redis as unknown as Record<string, AppendBatchCommand>)[APPEND_BATCH_COMMAND]!;
  return command.bind(redis);
}

/**
 * A batch id'd append: the script and `WAIT 1` in one pipeline (so on a cluster both go to the
 * node that holds the logs), then the message is published; returns the seqs.
 */
export async function appendThenPublish(redis: Redis, args: string[], waitMs: number, owner: string): Promise<Array<number | string>> {
  let reply: unknown;
  for (let attempt = 1; ; attempt++) {
    const pipeline = redis.pipeline();
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
    if (!redis.isCluster || attempt >= REDIRECT_ATTEMPTS || !CLUSTER_REDIRECT.test(error.message)) throw error;
    await new Promise((resolve) => setTimeout(resolve, REDIRECT_DELAY_MS));
    await new Promise<void>((resolve) => (redis as unknown as Cluster).refreshSlotsCache(() => resolve()));
  }
  const [message, ...seqs] = reply as Array<number | string>;
  await publishFeed(redis, feedChannel(redis.isCluster, TURN_EVENTS_CHANNEL, owner), String(message));
  return seqs;
}
