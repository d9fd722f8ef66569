/**
 * Single-use sign-in codes for Bull Board. A browser page load cannot carry a bearer header and a
 * token in a URL ends up in history, proxies and logs; so an operator trades their token for a
 * short-lived code, and the board's first page load swaps the code for an http-only cookie.
 * GETDEL makes a code work exactly once, even across server nodes.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { redisKey } from "../../queues/keys";

const CODE_PATTERN = /^[A-Za-z0-9_-]{32}$/;
const key = (code: string): string => redisKey("boardCode", false, { code });

export class BoardCodes {
  constructor(
    private readonly redis: Redis,
    readonly ttlSeconds: number,
  ) {}

  /** A new code standing for `token` until it is redeemed or `ttlSeconds` pass. */
  async issue(token: string): Promise<string> {
    const code = randomBytes(24).toString("base64url");
    await this.redis.set(key(code), token, "EX", this.ttlSeconds);
    return code;
  }

  /** The token behind a live code (consuming it), or null for an unknown, used or expired one. */
  async redeem(code: string): Promise<string | null> {
    if (!CODE_PATTERN.test(code)) return null;
    return this.redis.getdel(key(code));
  }
}
