/**
 * Finding and deleting the Redis keys of some owners, from the registry (queues/keys.ts): an
 * organisation's deletion, a person's erasure and the chat retention sweep all say whose keys go
 * (organisations, people, sessions, turns, actions) and this walks the families those owners have.
 *
 * - A family whose other parameters are enumerable (a turn's checkpoints) is deleted by name,
 *   without a SCAN: the retention sweep removes thousands of turns' keys this way.
 * - The others (an idempotency record's hash, a rate-limit bucket) are found by one SCAN pass over
 *   `skillnet:*` on each master, each key read by its family's template, never by guessing which
 *   part of a name is an id.
 * - An index (a person's asked questions) also takes the keys it lists.
 * - Families that cannot name their owner expire on their own within minutes (`expiresOnly`).
 */
import type { Cluster, Redis } from "ioredis";
import { KEY_FAMILIES, type KeyFamily, KEY_PREFIX, keyOfFamily, keyReader, keysByName, ownedByName, type Owner, REGISTERED_FAMILIES } from "./keys";

export type KeyOwners = Partial<Record<Owner, readonly string[]>>;

export interface PurgeScope {
  /** Organisations whose entries that quote people (`quotesPeople`) go too: a member is being erased. */
  quotingOrganisations?: readonly string[];
}

const DEL_BATCH = 500;
const lower = (ids: readonly string[] | undefined) => new Set((ids ?? []).map((id) => id.toLowerCase()));

interface Wanted {
  spec: KeyFamily;
  read: (key: string) => Record<string, string> | undefined;
  ownerParam: string;
  owners: Set<string>;
  orgParam?: string;
  organisations: Set<string>;
}

/** For each family, which of its keys these owners have: by name when it can, else what a scan must look for. */
function plan(cluster: boolean, owners: KeyOwners, scope: PurgeScope): { named: Array<{ spec: KeyFamily; key: string }>; scanned: Wanted[] } {
  const named: Array<{ spec: KeyFamily; key: string }> = [];
  const scanned: Wanted[] = [];
  for (const { spec } of REGISTERED_FAMILIES) {
    const family = ownedByName(spec);
    if (!family) continue;
    const ids = [...(owners[family.owner] ?? []), ...(family.quotesPeople ? (scope.quotingOrganisations ?? []) : [])];
    const organisations = family.orgParam ? lower(owners.organisation) : new Set<string>();
    if (ids.length === 0 && organisations.size === 0) continue;
    const byName = organisations.size === 0 ? ids.map((id) => keysByName(spec, cluster, id)) : [undefined];
    if (byName.every((keys) => keys !== undefined)) {
      for (const keys of byName) for (const key of keys!) named.push({ spec, key });
      continue;
    }
    scanned.push({ spec, read: keyReader(spec), ownerParam: family.ownerParam, owners: lower(ids), orgParam: family.orgParam, organisations });
  }
  return { named, scanned };
}

/** The keys of these owners, by name (whether they exist or not) and as found by a scan, with the keys their indexes list. */
async function candidates(redis: Redis, owners: KeyOwners, scope: PurgeScope): Promise<string[]> {
  const { named, scanned } = plan(redis.isCluster, owners, scope);
  const found: Array<{ spec: KeyFamily; key: string }> = [...named];
  if (scanned.length > 0) {
    await scan(redis, `${KEY_PREFIX}:*`, (key) => {
      for (const wanted of scanned) {
        const params = wanted.read(key);
        if (!params) continue;
        const theirs =
          wanted.owners.has(params[wanted.ownerParam]!.toLowerCase()) ||
          (wanted.orgParam !== undefined && wanted.organisations.has(params[wanted.orgParam]!.toLowerCase()));
        if (theirs) {
          found.push({ spec: wanted.spec, key });
          return;
        }
      }
    });
  }
  const listed: string[] = [];
  for (const { spec, key } of found) listed.push(...(await keysListedBy(redis, spec, key)));
  return [...new Set([...found.map(({ key }) => key), ...listed])];
}

/** The keys of these owners that exist now: what a check after a purge expects to find none of. */
export async function keysOfOwners(redis: Redis, owners: KeyOwners, scope: PurgeScope = {}): Promise<string[]> {
  const keys: string[] = [];
  for (const key of await candidates(redis, owners, scope)) if ((await redis.exists(key)) === 1) keys.push(key);
  return keys;
}

/** The keys an index key lists (its members, each completing a key of the indexed family). */
async function keysListedBy(redis: Redis, spec: KeyFamily, key: string): Promise<string[]> {
  const index = ownedByName(spec)?.indexes;
  if (!index) return [];
  const indexed = KEY_FAMILIES[index.family as keyof typeof KEY_FAMILIES] as KeyFamily;
  const params = keyReader(spec)(key) ?? {};
  const members = await redis.smembers(key);
  return members.map((member) => keyOfFamily(indexed, redis.isCluster, { ...params, [index.memberParam]: member }));
}

/** Deletes every key of these owners (see above); returns how many there were. */
export async function removeKeysOfOwners(redis: Redis, owners: KeyOwners, scope: PurgeScope = {}): Promise<number> {
  return deleteKeys(redis, await candidates(redis, owners, scope));
}

/** Calls `seen` with every key matching `pattern` (a SCAN MATCH), on every master. */
async function scan(redis: Redis, pattern: string, seen: (key: string) => void): Promise<void> {
  for (const node of mastersOf(redis)) {
    let cursor = "0";
    do {
      const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      for (const key of found) seen(key);
    } while (cursor !== "0");
  }
}

/** DEL in batches; on a cluster one key per command (keys of different owners are in different slots). */
export async function deleteKeys(redis: Redis, keys: readonly string[]): Promise<number> {
  let removed = 0;
  for (let start = 0; start < keys.length; start += DEL_BATCH) {
    const batch = keys.slice(start, start + DEL_BATCH);
    if (redis.isCluster) {
      const results = await Promise.all(batch.map((key) => redis.del(key)));
      removed += results.reduce((sum, count) => sum + count, 0);
    } else removed += await redis.del(...batch);
  }
  return removed;
}

/** The connections to SCAN: the one server, or every master of a cluster. */
function mastersOf(redis: Redis): Redis[] {
  if (!redis.isCluster) return [redis];
  // createRedis hands a Cluster out typed as Redis (queues/connection.ts); only here do we need its nodes.
  return (redis as unknown as Cluster).nodes("master");
}
