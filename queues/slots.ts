/**
 * Where keys live on a Redis Cluster. A cluster splits keys into 16384 hash slots by the CRC16
 * of the key, or of the part between `{` and `}` when the key has one (its hash tag), and runs
 * a command or Lua script only when every key it names is in one slot. So keys used together
 * carry the same tag: a queue copy's BullMQ keys share its tag (a flow's parent and children
 * too), and the keys a turn's event script, a cancel poll or a rate-limit check touch at once
 * share the tag of what they belong to.
 *
 * Tags are not the ids themselves: a tag per turn would make a process's event batch one script
 * call per turn, and a server would have to subscribe to a channel per turn. Instead an id is
 * hashed onto one of a few fixed tags, chosen so their slots are evenly spaced: with the usual
 * even split of slots, each primary owns the same number of tags and so the same share of turns.
 */

const SLOT_COUNT = 16384;

/** CRC16-XMODEM, the hash Redis Cluster slots are cut from. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The hash slot Redis Cluster gives `key` (its `{tag}` when it has a non-empty one). */
export function slotOf(key: string): number {
  const open = key.indexOf("{");
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % SLOT_COUNT;
  }
  return crc16(key) % SLOT_COUNT;
}

const spreads = new Map<string, readonly string[]>();

/**
 * `count` hash tags (`{q0.17}`, …) whose slots fall one in each of `count` equal slices of the
 * slot range, so they spread over a cluster's primaries as evenly as its slots do.
 */
export function spreadTags(label: string, count: number): readonly string[] {
  const known = spreads.get(`${label}/${count}`);
  if (known) return known;
  const tags = Array.from({ length: count }, (_, i) => {
    const [from, to] = [Math.floor((i * SLOT_COUNT) / count), Math.floor(((i + 1) * SLOT_COUNT) / count)];
    for (let attempt = 0; ; attempt++) {
      const tag = `${label}${i}.${attempt}`;
      const slot = crc16(tag) % SLOT_COUNT;
      if (slot >= from && slot < to) return `{${tag}}`;
    }
  });
  spreads.set(`${label}/${count}`, tags);
  return tags;
}

/** Which of `count` copies an id belongs to: stable across processes and restarts. */
export function shardOf(id: string, count: number): number {
  return count <= 1 ? 0 : crc16(id) % count;
}

/** How many tags keys owned by a turn, session, action or organisation are spread over. */
const KEY_TAG_COUNT = 16;

/** Every tag `keyTagOf` can give: servers subscribe to one event channel per tag. */
export const KEY_TAGS: readonly string[] = spreadTags("k", KEY_TAG_COUNT);

/**
 * The hash tag of the keys that belong to one turn, session, action or organisation (by its
 * id). Keys of one owner always share it, so a script over them stays in one slot; different
 * owners spread over the cluster.
 */
export function keyTagOf(ownerId: string): string {
  return KEY_TAGS[shardOf(ownerId, KEY_TAG_COUNT)]!;
}

/** Groups items by the tag of their key, in first-seen order: one command or script call per group. */
export function groupByTag<T>(items: readonly T[], tagOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const tag = tagOf(item);
    const group = groups.get(tag);
    if (group) group.push(item);
    else groups.set(tag, [item]);
  }
  return groups;
}

/**
 * A `skillnet:` key owned by a turn, session, action or organisation. On a cluster it carries the
 * owner's tag (`skillnet:{k3.0}:turn:<id>:log`); on a single Redis it is the plain name of before.
 */
export function ownedKey(cluster: boolean, ownerId: string, name: string): string {
  return cluster ? `skillnet:${keyTagOf(ownerId)}:${name}` : `skillnet:${name}`;
}
