/**
 * The Redis key registry (queues/keys.ts) and the purge that walks it (queues/key-purge.ts): every
 * family says whose its keys are and how long they live (a family without an owner does not
 * compile), keys keep the names they had, and a purge removes exactly its owners' keys — by name,
 * by template, through an index — on the database lane's real Redis.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { keysOfOwners, removeKeysOfOwners } from "../../../queues/key-purge";
import { family, KEY_FAMILIES, keyReader, keysByName, ownerParamOf, redisKey, REGISTERED_FAMILIES } from "../../../queues/keys";
import { turnCheckpointKey } from "../../../queues/turn-keys";
import { databaseSuite } from "../../support/database";

describe("the Redis key registry", () => {
  it("refuses, at compile time, a family without an owner, an owner its keys cannot name, or an owner parameter its template lacks", () => {
    // @ts-expect-error a family must say whose its keys are
    family({ template: "thing:{id}", ttl: { seconds: 60 } });
    // @ts-expect-error a person's keys either name the person or say why not and expire
    family({ template: "thing:{id}", owner: "person", ttl: { seconds: 60 } });
    // @ts-expect-error the owner parameter must be one of the template's
    family({ template: "thing:{id}", owner: "person", ownerParam: "userId", ttl: { seconds: 60 } });
    // @ts-expect-error a key reached only by its TTL must have one
    family({ template: "thing:{id}", owner: "person", ttl: { keptBy: "nobody" }, expiresOnly: "why" });
    expect(family({ template: "thing:{userId}", owner: "person", ownerParam: "userId", ttl: { seconds: 60 } }).owner).to.equal("person");
  });

  it("declares an owner and a TTL for every family, and an owner parameter that is in its template", () => {
    for (const { name, spec } of REGISTERED_FAMILIES) {
      expect(["organisation", "person", "session", "turn", "action", "deployment"], name).to.include(spec.owner);
      expect(Object.keys(spec.ttl), name).to.have.length(1);
      const ownerParam = ownerParamOf(spec);
      if (ownerParam) expect(spec.template, name).to.contain(`{${ownerParam}}`);
      else if (spec.owner !== "deployment") expect((spec as { expiresOnly?: string }).expiresOnly, name).to.be.a("string");
    }
    expect(KEY_FAMILIES.questionEmbedding.owner).to.equal("organisation");
    expect(KEY_FAMILIES.questionsAsked.owner).to.equal("person");
  });

  it("builds the names keys had before the registry, with the owner's tag on a cluster", () => {
    const [turnId, userId, orgId] = [randomUUID(), randomUUID(), randomUUID()];
    expect(redisKey("turnLog", false, { turnId })).to.equal(`skillnet:turn:${turnId}:log`);
    expect(redisKey("socketLeases", false, { userId })).to.equal(`skillnet:sockets:user:${userId}`);
    expect(redisKey("rateLimitOfPerson", false, { bucket: "chat", userId }, orgId)).to.equal(`skillnet:rate-window:chat:user:${userId}`);
    expect(redisKey("rateLimitOfOrganisation", false, { bucket: "chat", orgId })).to.equal(`skillnet:rate-window:chat:org:${orgId}`);
    expect(redisKey("rateLimitOfCaller", false, { bucket: "login", caller: "10.0.0.1" }, "10.0.0.1")).to.equal("skillnet:rate-window:login:10.0.0.1");
    expect(redisKey("idempotency", false, { scope: "chat", orgId, userId, hash: "ab" })).to.equal(`skillnet:idempotency:chat:${orgId}:${userId}:ab`);
    expect(redisKey("boardCode", true, { code: "c" })).to.equal("skillnet:board-code:c");
    expect(redisKey("turnLog", true, { turnId })).to.match(new RegExp(`^skillnet:\\{k\\d+\\.\\d+\\}:turn:${turnId}:log$`));
  });

  it("names an owner's keys without a scan when the other parameters are enumerable, and reads a key back by its template", () => {
    const turnId = randomUUID();
    expect(keysByName(KEY_FAMILIES.turnCheckpoint, true, turnId)).to.deep.equal(
      (["intent", "retrieval", "answer"] as const).map((checkpoint) => turnCheckpointKey(true, turnId, checkpoint)),
    );
    expect(keysByName(KEY_FAMILIES.idempotency, false, turnId), "a hash is not enumerable").to.equal(undefined);
    const read = keyReader(KEY_FAMILIES.questionsAsked);
    expect(read(`skillnet:{k3.0}:query-embedding:o1:asked-by:u1`)).to.deep.equal({ orgId: "o1", userId: "u1" });
    expect(read(`skillnet:query-embedding:o1:abcdef`), "an entry is not an index").to.equal(undefined);
  });

  describe("on Redis", function () {
    const lane = databaseSuite(this);

    it("removes exactly its owners' keys: by name, by template, the entries an index lists, and the organisation's entries that quote people", async () => {
      const redis = lane.redis;
      const [orgId, otherOrg, person, colleague, turnId, otherTurn] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const cluster = redis.isCluster;
      const theirs = [
        turnCheckpointKey(cluster, turnId, "answer"),
        redisKey("turnLog", cluster, { turnId }),
        redisKey("idempotency", cluster, { scope: "chat", orgId, userId: person, hash: "h1" }),
        redisKey("rateLimitOfPerson", cluster, { bucket: "chat", userId: person }, orgId),
        redisKey("questionEmbedding", cluster, { orgId, hash: "asked-by-person" }),
        redisKey("contentGapReport", cluster, { orgId, digest: "d1" }),
      ];
      const others = [
        redisKey("turnLog", cluster, { turnId: otherTurn }),
        redisKey("idempotency", cluster, { scope: "chat", orgId, userId: colleague, hash: "h1" }),
        redisKey("questionEmbedding", cluster, { orgId, hash: "asked-by-colleague" }),
        redisKey("questionEmbedding", cluster, { orgId: otherOrg, hash: "asked-by-person" }),
        redisKey("contentGapReport", cluster, { orgId: otherOrg, digest: "d1" }),
      ];
      for (const key of [...theirs, ...others]) await redis.set(key, "x", "EX", 300);
      await redis.sadd(redisKey("questionsAsked", cluster, { orgId, userId: person }), "asked-by-person");
      await redis.sadd(redisKey("questionsAsked", cluster, { orgId, userId: colleague }), "asked-by-colleague");
      theirs.push(redisKey("questionsAsked", cluster, { orgId, userId: person }));
      others.push(redisKey("questionsAsked", cluster, { orgId, userId: colleague }));

      const owners = { person: [person], turn: [turnId] };
      const scope = { quotingOrganisations: [orgId] };
      expect(await keysOfOwners(redis, owners, scope)).to.have.members(theirs);
      expect(await removeKeysOfOwners(redis, owners, scope)).to.equal(theirs.length);
      expect(await keysOfOwners(redis, owners, scope)).to.deep.equal([]);
      for (const key of others) expect(await redis.exists(key), key).to.equal(1);

      // The organisation's deletion takes every key carrying it, whoever asked.
      await removeKeysOfOwners(redis, { organisation: [orgId], person: [colleague] });
      for (const key of others.slice(0, 3)) expect(await redis.exists(key), key).to.equal(key.includes(otherTurn) ? 1 : 0);
      expect(await redis.exists(others[3]!, others[4]!)).to.equal(2, "another organisation's entries stay");
      await redis.del(...others);
    });
  });
});
