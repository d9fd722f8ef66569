/**
 * Hash slots and tags (queues/slots.ts): slots as Redis Cluster computes them (values from
 * `CLUSTER KEYSLOT`), tags spread one per slice of the slot range, owners' keys in one slot.
 */
import { expect } from "chai";
import { queuePrefix, SINGLE_LAYOUT, shardOfSession } from "../../../queues/layout";
import { KEY_TAGS, keyTagOf, ownedKey, slotOf, spreadTags } from "../../../queues/slots";
import { TURN_CHECKPOINTS, turnCancelKey, turnCheckpointKey } from "../../../queues/turn-keys";

describe("hash slots and tags", () => {
  it("computes the slot Redis Cluster gives a key, hash tag included", () => {
    // Reference values from redis-server 7.0 `CLUSTER KEYSLOT`.
    expect(slotOf("foo")).to.equal(12182);
    expect(slotOf("123456789")).to.equal(12739);
    expect(slotOf("{user1000}.following")).to.equal(slotOf("user1000"));
    // An empty first tag means the whole key is hashed (CLUSTER KEYSLOT foo{}{bar} = 8363).
    expect(slotOf("foo{}{bar}")).to.equal(8363);
  });

  it("spreads tags one per equal slice of the slot range", () => {
    const tags = spreadTags("q", 6);
    tags.forEach((tag, i) => {
      const slot = slotOf(tag);
      expect(slot).to.be.at.least(Math.floor((i * 16384) / 6));
      expect(slot).to.be.below(Math.floor(((i + 1) * 16384) / 6));
    });
    expect(new Set(KEY_TAGS).size).to.equal(KEY_TAGS.length);
  });

  it("keeps an owner's keys in one slot on a cluster and the plain names on one Redis", () => {
    const turnId = "6f1c1d4e-8a8b-4b57-9a3e-1f0d2a1b7c55";
    // The turn's log and everything queues/turn-keys.ts names for it: one MGET reads its checkpoints, one DEL clears them.
    const turnKeys = [turnCancelKey(true, turnId), ...TURN_CHECKPOINTS.map((checkpoint) => turnCheckpointKey(true, turnId, checkpoint))];
    expect(new Set([ownedKey(true, turnId, `turn:${turnId}:log`), ...turnKeys].map(slotOf)).size).to.equal(1);
    expect(ownedKey(true, turnId, "x")).to.contain(keyTagOf(turnId));
    expect(ownedKey(false, turnId, `turn:${turnId}:log`)).to.equal(`skillnet:turn:${turnId}:log`);
  });

  it("gives a session's turn queues one tag per copy, and keeps the old prefix on one Redis with one copy", () => {
    const layout = { shards: 6, cluster: true };
    for (let shard = 0; shard < 6; shard++) {
      const slots = new Set((["tutor-generate", "admin-plan"] as const).map((q) => slotOf(`${queuePrefix(layout, q, shard)}:${q}:wait`)));
      expect(slots.size).to.equal(1);
    }
    expect(queuePrefix(SINGLE_LAYOUT, "tutor-generate", 0)).to.equal("skillnet");
    expect(queuePrefix(SINGLE_LAYOUT, "ingest-embed", 0)).to.equal("skillnet");
    expect(queuePrefix({ shards: 4, cluster: false }, "admin-plan", 0), "copy 0 keeps the queued work of before").to.equal("skillnet");
    expect(queuePrefix(layout, "ingest-embed", 0)).to.equal("skillnet:{ingest-embed}");
    const sessions = Array.from({ length: 600 }, (_, i) => `session-${i}`);
    const counts = new Map<number, number>();
    for (const session of sessions) counts.set(shardOfSession(layout, session), (counts.get(shardOfSession(layout, session)) ?? 0) + 1);
    expect(counts.size).to.equal(6);
    expect(shardOfSession(layout, "s")).to.equal(shardOfSession(layout, "s"));
  });
});
