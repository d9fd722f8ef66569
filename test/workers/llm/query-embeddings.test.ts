/**
 * The query-embedding cache against the real Redis of the stack and a scripted model server: a
 * repeated question makes no embedding call within its TTL and makes one after it; each
 * organisation has its own entries; passages and start-up probes are never cached.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { removeOwnedKeys } from "../../../queues/org-purge";
import { QueryEmbeddingCache } from "../../../workers/llm/query-embeddings";
import { waitFor } from "../../harness/client";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";
import { type Stack, useStack } from "../../support/stack";
import { makeClient } from "./helpers";

describe("the query-embedding cache", function () {
  this.timeout(30_000);
  let stack: Stack;
  let llm: ScriptedLlm;
  const orgA = randomUUID();
  const orgB = randomUUID();

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  const client = (ttlSeconds: number) => {
    const cache = new QueryEmbeddingCache(stack.workers.deps.redis, ttlSeconds);
    return { cache, ...makeClient(llm, {}, { queryCache: cache }) };
  };

  it("embeds a repeated question once within the TTL, and again after it", async () => {
    const { client: llmClient, cache, config } = client(1);
    const question = `How many days do I have to return an item? ${randomUUID()}`;
    const first = await llmClient.embed([question], "query", { orgId: orgA });
    expect(llm.embeddingCalls()).to.have.length(1);

    const again = await llmClient.embed([`  ${question.replace(" ", "\n")} `], "query", { orgId: orgA, userId: "someone-else" });
    expect(llm.embeddingCalls()).to.have.length(1, "the second identical question (whitespace aside) made no embedding call");
    expect(again[0]).to.have.length(first[0]!.length);
    again[0]!.forEach((value, index) => expect(value).to.be.closeTo(first[0]![index]!, 1e-6));

    const key = cache.keyOf({
      orgId: orgA,
      model: config.embedding.EMBEDDING_MODEL,
      dimensions: config.embedding.EMBEDDING_DIMENSIONS,
      input: `query: ${question}`,
    });
    expect(key).to.match(new RegExp(`^skillnet:(\\{[^}]+\\}:)?query-embedding:${orgA}:[0-9a-f]{64}$`));
    expect(key, "the question's text is not in the key").not.to.contain("return");
    // Redis expires the entry (no clock of ours involved); then the question is embedded again.
    await waitFor(async () => (await stack.workers.deps.redis.exists(key)) === 0, 5_000, "the cache entry to expire");
    await llmClient.embed([question], "query", { orgId: orgA });
    expect(llm.embeddingCalls()).to.have.length(2, "after the TTL the question is embedded again");
  });

  it("keeps each organisation's questions apart", async () => {
    const { client: llmClient } = client(300);
    const question = `Where is the fire exit? ${randomUUID()}`;
    await llmClient.embed([question], "query", { orgId: orgA });
    await llmClient.embed([question], "query", { orgId: orgB });
    expect(llm.embeddingCalls()).to.have.length(2, "another organisation's entry is not used");
    await llmClient.embed([question], "query", { orgId: orgB });
    expect(llm.embeddingCalls()).to.have.length(2);
  });

  it("embeds only the questions of a batch it does not hold, in order", async () => {
    const { client: llmClient } = client(300);
    const known = `known ${randomUUID()}`;
    const fresh = `fresh ${randomUUID()}`;
    const [knownVector] = await llmClient.embed([known], "query", { orgId: orgA });
    const [freshAlone] = await makeClient(llm).client.embed([fresh], "query");
    llm.reset();
    const vectors = await llmClient.embed([fresh, known], "query", { orgId: orgA });
    expect(llm.embeddingCalls().map((call) => call.body.input)).to.deep.equal([[`query: ${fresh}`]]);
    expect(vectors[1]![0]).to.be.closeTo(knownVector![0]!, 1e-6);
    expect(vectors[0]![0]).to.be.closeTo(freshAlone![0]!, 1e-6);
  });

  it("never caches passages, questions without an organisation, or with a TTL of 0", async () => {
    const text = `Returns are accepted for 30 days. ${randomUUID()}`;
    const { client: llmClient } = client(300);
    await llmClient.embed([text], "passage", { orgId: orgA });
    await llmClient.embed([text], "passage", { orgId: orgA });
    await llmClient.embed([text], "query");
    await llmClient.embed([text], "query");
    const { client: off } = client(0);
    await off.embed([text], "query", { orgId: orgA });
    await off.embed([text], "query", { orgId: orgA });
    expect(llm.embeddingCalls()).to.have.length(6);
  });

  it("is removed with the rest of an organisation's Redis keys when it is deleted, and only its own", async () => {
    const { client: llmClient, cache, config } = client(300);
    const question = `Who approves overtime? ${randomUUID()}`;
    await llmClient.embed([question], "query", { orgId: orgA });
    await llmClient.embed([question], "query", { orgId: orgB });
    const keyOf = (orgId: string) =>
      cache.keyOf({ orgId, model: config.embedding.EMBEDDING_MODEL, dimensions: config.embedding.EMBEDDING_DIMENSIONS, input: `query: ${question}` });
    const redis = stack.workers.deps.redis;
    expect(await redis.exists(keyOf(orgA), keyOf(orgB))).to.equal(2);
    await removeOwnedKeys(redis, stack.workers.deps.producer, { orgId: orgA, userIds: [], sessionIds: [], turnIds: [], actionIds: [] });
    expect(await redis.exists(keyOf(orgA))).to.equal(0, "the deleted organisation's entry is gone");
    expect(await redis.exists(keyOf(orgB))).to.equal(1, "another organisation's entry stays");
  });
});
