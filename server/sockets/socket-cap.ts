/**
 * How many sockets one user may hold open at once, across every server node. Each open socket
 * holds a lease in the user's Redis sorted set (member: socket id, score: when the lease ends);
 * a node renews its sockets' leases while they live and removes them on disconnect, so the
 * sockets of a node that died without saying so drop out once their leases run out. Counting
 * and adding happen in one script, so two nodes cannot both admit the last free place. A node
 * also counts its own sockets first (no I/O), so a burst on one node is refused without Redis.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisKey } from "../../queues/keys";

// Drops expired leases; renews the member's if it holds one; else admits it when there is room.
const CLAIM = `
local key, now, expiry, max, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if not redis.call('ZSCORE', key, member) and redis.call('ZCARD', key) >= max then
  return 0
end
redis.call('ZADD', key, expiry, member)
redis.call('PEXPIREAT', key, expiry)
return 1
`;

/** A lease outlives its last renewal by this much; a node renews every third of it. */
export const SOCKET_LEASE_MS = 60_000;

export interface SocketHolder {
  userId: string;
  socketId: string;
}

export class SocketCap {
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly maxPerUser: number,
    private readonly log: Logger,
    private readonly leaseMs = SOCKET_LEASE_MS,
  ) {}

  private key(userId: string): string {
    return redisKey("socketLeases", this.redis.isCluster, { userId });
  }

  /**
   * Whether `socketId` may open: false when the user already holds `maxPerUser` sockets here
   * (`localCount`) or across nodes. Redis unreachable: the node's own count still bounds it.
   */
  async claim(holder: SocketHolder, localCount: number): Promise<boolean> {
    if (localCount >= this.maxPerUser) return false;
    const now = Date.now();
    try {
      return (await this.redis.eval(CLAIM, 1, this.key(holder.userId), now, now + this.leaseMs, this.maxPerUser, holder.socketId)) === 1;
    } catch (error) {
      this.log.warn({ err: error, userId: holder.userId }, "shared socket cap unavailable; node-local cap only");
      return true;
    }
  }

  async release(holder: SocketHolder): Promise<void> {
    await this.redis.zrem(this.key(holder.userId), holder.socketId).catch((error) => this.log.warn({ err: error }, "releasing a socket lease failed"));
  }

  /** Renews the leases of this node's live sockets every third of a lease, until `close`. */
  start(live: () => Iterable<SocketHolder>): void {
    this.renewTimer = setInterval(() => void this.renew(live()), Math.max(1_000, Math.floor(this.leaseMs / 3)));
    this.renewTimer.unref();
  }

  private async renew(holders: Iterable<SocketHolder>): Promise<void> {
    const expiry = Date.now() + this.leaseMs;
    try {
      // One key per command, so each lands on its own slot's node on a cluster.
      await Promise.all(
        [...holders].map(async ({ userId, socketId }) => {
          const key = this.key(userId);
          await this.redis.zadd(key, "XX", expiry, socketId);
          await this.redis.pexpireat(key, expiry);
        }),
      );
    } catch (error) {
      this.log.warn({ err: error }, "renewing socket leases failed; the next round tries again");
    }
  }

  close(): void {
    clearInterval(this.renewTimer);
  }
}
