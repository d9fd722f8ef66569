/**
 * Fair queues between organisations on BullMQ's open-source features: every job of a shared queue
 * gets, as its BullMQ priority, its organisation's place on a virtual clock (start-time fair
 * queueing). BullMQ starts the lowest priority first, FIFO within one, so job k of every
 * organisation with work queued runs before job k+1 of any of them: a newcomer's first job goes
 * in at the head of the line whatever backlog is queued, while an organisation alone on the
 * queue still gets every slot.
 *
 * The clock lives in one hash per queue copy (`<prefix>:<queue>:fair`, so on a Redis Cluster it
 * shares the copy's hash tag and slot), moved by one Lua script at enqueue, atomically:
 *
 * - the floor is the priority of the next job to start (the head of BullMQ's prioritized set),
 *   or, with nothing queued, the highest priority handed out (everything queued has started);
 *   it never moves back;
 * - a job starts at max(its organisation's finish tag, floor − 1) and moves that finish tag on
 *   by its cost (1 for a turn; embedding batches for an embed job, so a large document leaves the
 *   others more turns). An organisation with nothing queued so lands just ahead of the head of
 *   the line (floor − 1 stands for the clock of the job last started), which is what lets a
 *   reserved worker slot (workers/fair-reserve.ts) take it at once.
 *
 * Nothing runs when a job starts or ends: the workers' path is unchanged. A retried, stalled or
 * handed-back job keeps the priority stored in its hash, so it goes back to its place, ahead of
 * later work; a lost enqueue (crash after the script) only leaves a gap in one organisation's
 * clock. BullMQ caps priorities at 2^21: when a tag would pass it, the script shifts the clock
 * and every priority of the copy's prioritized, delayed and active jobs down to a floor of 2 (order
 * kept), once every ~2 million turns of a busy copy.
 */
import type { Redis } from "ioredis";

/** BullMQ's largest priority (2^21). */
export const MAX_BULLMQ_PRIORITY = 2_097_152;

/** Only the queues that carry an organisation's work are fair-queued. */
export const FAIR_QUEUES = ["tutor-generate", "admin-plan", "ingest-extract", "ingest-chunk", "ingest-embed", "catalog-import", "chat-attachment"] as const;
export type FairQueue = (typeof FAIR_QUEUES)[number];

const COMMAND = "skillnetFairPriority";

/**
 * KEYS[1] the fair hash, KEYS[2] the queue's prioritized zset. ARGV: key base (`<prefix>:<queue>:`),
 * organisation id, cost, the largest priority. Returns the job's priority.
 * Hash fields: `f` floor, `m` highest finish tag handed out, `o:<orgId>` an organisation's finish tag.
 */
const SCRIPT = `
local fair, prioritized, base = KEYS[1], KEYS[2], ARGV[1]
local orgField, cost, limit = "o:" .. ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local SHIFT = 4294967296
local floor = tonumber(redis.call("HGET", fair, "f") or "1")
local top = tonumber(redis.call("HGET", fair, "m") or "1")
local head = redis.call("ZRANGE", prioritized, 0, 0, "WITHSCORES")
local next = top
if head[2] then next = math.floor(tonumber(head[2]) / SHIFT) end
if next > floor then floor = next end
-- An organisation with nothing queued starts just ahead of the head (the clock of the job in service).
local lowest = floor - 1
if lowest < 1 then lowest = 1 end
local start = tonumber(redis.call("HGET", fair, orgField) or "0")
if start < lowest then start = lowest end

if start + cost > limit and floor > 2 then
  -- Rebase: every priority of the copy moves down by (floor - 2), so the floor becomes 2; order is kept.
  local by = floor - 2
  local function moved(p) local q = p - by if q < 1 then return 1 end return q end
  local entries = redis.call("ZRANGE", prioritized, 0, -1, "WITHSCORES")
  for i = 1, #entries, 2 do
    local score = tonumber(entries[i + 1])
    local p = math.floor(score / SHIFT)
    local q = moved(p)
    redis.call("ZADD", prioritized, q * SHIFT + (score - p * SHIFT), entries[i])
    redis.call("HSET", base .. entries[i], "priority", q)
  end
  local others = redis.call("ZRANGE", base .. "delayed", 0, -1)
  for _, id in ipairs(redis.call("LRANGE", base .. "active", 0, -1)) do others[#others + 1] = id end
  for _, id in ipairs(others) do
    local p = tonumber(redis.call("HGET", base .. id, "priority") or "0")
    if p > 0 then redis.call("HSET", base .. id, "priority", moved(p)) end
  end
  local fields = redis.call("HGETALL", fair)
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == "o:" then
      local q = tonumber(fields[i + 1]) - by
      if q <= 1 then redis.call("HDEL", fair, fields[i]) else redis.call("HSET", fair, fields[i], q) end
    end
  end
  top = moved(top)
  floor = 2
  start = moved(start)
end

if start >= limit then start = limit - 1 end
local finish = start + cost
if finish > top then top = finish end
redis.call("HSET", fair, "f", floor, "m", top, orgField, finish)
return start
`;

type FairPriorityCommand = (fairKey: string, prioritizedKey: string, base: string, orgId: string, cost: number, limit: number) => Promise<number>;

/** Hands out fair priorities for the queue copies under given BullMQ prefixes. */
export class FairShare {
  private readonly command: FairPriorityCommand;

  /** `limit` is BullMQ's cap; tests lower it to see the clock rebase. */
  constructor(
    redis: Redis,
    private readonly limit = MAX_BULLMQ_PRIORITY,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: SCRIPT });
    const command = (redis as unknown as Record<string, FairPriorityCommand>)[COMMAND]!;
    this.command = command.bind(redis);
  }

  /** The BullMQ priority of the next job of `orgId` on the copy of `queue` under `prefix`; `cost` ≥ 1. */
  async priorityFor(prefix: string, queue: FairQueue, orgId: string, cost = 1): Promise<number> {
    const base = `${prefix}:${queue}:`;
    return Number(await this.command(`${base}fair`, `${base}prioritized`, base, orgId, Math.max(1, Math.round(cost)), this.limit));
  }
}
