/**
 * The DNS TXT lookup that proves an organisation owns an email domain: the organisation
 * publishes `skillnet-domain-verification=<token>` at `_skillnet-challenge.<domain>` and we look
 * it up when asked. Bounded in time (a resolver that does not answer is a failed lookup, never a
 * hang), and a failed lookup proves nothing. The resolvers are the system's unless DNS_RESOLVERS
 * names others (tests run their own server on loopback).
 */
import { Resolver } from "node:dns/promises";

export const CHALLENGE_LABEL = "_skillnet-challenge";
export const CHALLENGE_PREFIX = "skillnet-domain-verification=";

/** Per try; two tries, and the whole lookup is cut at LOOKUP_BUDGET_MS whatever the resolver does. */
const TRY_TIMEOUT_MS = 2_000;
const LOOKUP_BUDGET_MS = 5_000;

export function challengeRecord(domain: string, token: string): { name: string; type: "TXT"; value: string } {
  return { name: `${CHALLENGE_LABEL}.${domain}`, type: "TXT", value: `${CHALLENGE_PREFIX}${token}` };
}

export type ChallengeOutcome =
  /** The expected value is among the TXT records. */
  | { kind: "found" }
  /** The name has no TXT record with the expected value (none at all, or others). */
  | { kind: "missing" }
  /** The resolver failed or did not answer in time: nothing is known. */
  | { kind: "failed"; reason: string };

const ABSENT = new Set(["ENOTFOUND", "ENODATA"]);

/** Looks the challenge up now (no cache of ours). */
export async function checkChallenge(domain: string, token: string, servers: readonly string[]): Promise<ChallengeOutcome> {
  const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  const { name, value } = challengeRecord(domain, token);
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      resolver.cancel();
      reject(Object.assign(new Error("DNS lookup took too long"), { code: "ETIMEOUT" }));
    }, LOOKUP_BUDGET_MS);
  });
  try {
    const records = await Promise.race([resolver.resolveTxt(name), budget]);
    // A long TXT value arrives split in 255-byte strings: joined, it is the value published.
    return records.some((chunks) => chunks.join("") === value) ? { kind: "found" } : { kind: "missing" };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "EUNKNOWN";
    return ABSENT.has(code) ? { kind: "missing" } : { kind: "failed", reason: code };
  } finally {
    clearTimeout(timer);
  }
}
