/**
 * node-saml's CacheProvider on Redis: the ids of the AuthnRequests and LogoutRequests we sent,
 * per provider, for ten minutes, so a response's InResponseTo is checked on whichever server
 * process receives it, and an id another provider's request made is unknown here. Beside it,
 * the assertions already used (`rememberAssertion`): SET NX, so of two processes receiving the
 * same assertion at once exactly one signs anyone in. A request id is answered once: whoever
 * removes it (GETDEL) first has it.
 */
import type { Redis } from "ioredis";
import type { CacheItem, CacheProvider } from "@node-saml/node-saml";
import { redisKey } from "../../../queues/keys";

export const SAML_REQUEST_TTL_SECONDS = 600;
/** The most an assertion is accepted after it was issued (node-saml's maxAssertionAgeMs); its replay record lives as long plus skew. */
export const SAML_ASSERTION_MAX_AGE_MS = 10 * 60_000;
export const SAML_CLOCK_SKEW_MS = 60_000;
const SEEN_MAX_SECONDS = 900;
const ID = /^[A-Za-z_][\w.-]{0,127}$/;

export class SamlRequestCache implements CacheProvider {
  /** The ids this instance (one message's handling) removed: node-saml removes some itself before `consume` is asked. */
  private readonly removedHere = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly providerId: string,
  ) {}

  private key(requestId: string): string {
    return redisKey("samlRequest", false, { providerId: this.providerId, requestId });
  }

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    await this.redis.set(this.key(key), value, "EX", SAML_REQUEST_TTL_SECONDS);
    return { value, createdAt: Date.now() };
  }

  async getAsync(key: string): Promise<string | null> {
    return ID.test(key) ? this.redis.get(this.key(key)) : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (!key || !ID.test(key)) return null;
    const value = await this.redis.getdel(this.key(key));
    if (value !== null) this.removedHere.add(key);
    return value;
  }

  /** True exactly once per request id across processes (GETDEL): by this handling's own removal, or now. */
  async consume(requestId: string): Promise<boolean> {
    return this.removedHere.has(requestId) || (await this.removeAsync(requestId)) !== null;
  }
}

/** True the first time an assertion is seen (on any process), false for a replay. */
export async function rememberAssertion(redis: Redis, providerId: string, assertionId: string, notOnOrAfterMs: number): Promise<boolean> {
  const seconds = Math.min(SEEN_MAX_SECONDS, Math.max(1, Math.ceil((notOnOrAfterMs + SAML_CLOCK_SKEW_MS - Date.now()) / 1000)));
  const stored = await redis.set(redisKey("samlAssertionSeen", false, { providerId, assertionId: assertionId.slice(0, 200) }), "1", "EX", seconds, "NX");
  return stored === "OK";
}
