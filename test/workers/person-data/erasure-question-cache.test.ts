/**
 * The question-embedding cache and a person's erasure, on the real stack with the cache switched on
 * (the suites' stack runs with it off): the person and a colleague ask their questions through the
 * tutor, so do two people of another organisation (one asking the person's very words); the erasure
 * leaves no key the registry gives the person (queues/keys.ts: their entries through the
 * `questionsAsked` index among them), while the colleague's entries and the other organisation's
 * stay.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { keysOfOwners } from "../../../queues/key-purge";
import { redisKey } from "../../../queues/keys";
import { LlmClient } from "../../../workers/llm/client";
import { QueryEmbeddingCache } from "../../../workers/llm/query-embeddings";
import { usageLogSink } from "../../../workers/usage-log";
import { api, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { FAST_RETRY } from "../llm/helpers";
import { ask } from "../tutor/helpers";

describe("person-data: an erasure removes the person's cached question embeddings and only theirs", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000 });
  const redis = () => stack.server.deps.redis;
  const phrase = `saffron-heron-${randomUUID().slice(0, 8)}`;
  let orgA = "";
  let orgB = "";
  let uncachedLlm: LlmClient | undefined;

  before(async () => {
    orgA = await freshOrganisation(stack, "Question cache A");
    orgB = await freshOrganisation(stack, "Question cache B");
    uncachedLlm = stack.workers.deps.llm;
    stack.workers.deps.llm = new LlmClient(stack.config, {
      retry: FAST_RETRY,
      usage: usageLogSink(stack.server.deps.db, { defaultMonthlyTokens: stack.config.organisations.AI_MONTHLY_TOKENS_PER_ORG }),
      queryCache: new QueryEmbeddingCache(stack.workers.deps.redis, 3600),
    });
  });
  after(async () => {
    if (uncachedLlm) stack.workers.deps.llm = uncachedLlm;
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgA, orgB]);
  });

  const learner = (person: Person) => ({ token: person.token, userId: person.id, email: person.email, socket: person.socket, events: person.events });
  const entries = async (orgId: string) => (await redis().keys(`skillnet:*query-embedding:${orgId}:*`)).filter((key) => !key.includes(":asked-by:")).sort();
  const askedBy = async (orgId: string, userId: string) => redis().smembers(redisKey("questionsAsked", redis().isCluster, { orgId, userId }));

  it("leaves no key of the person's, and the colleague's and the other organisation's entries as they were", async () => {
    const admin = await freshUser(stack, { role: "admin", orgId: orgA });
    const person = await freshUser(stack, { orgId: orgA });
    const colleague = await freshUser(stack, { orgId: orgA });
    const otherPerson = await freshUser(stack, { orgId: orgB });
    const theirWords = `How do I book the ${phrase} offsite?`;
    await ask(stack, learner(person), theirWords);
    await ask(stack, learner(colleague), `Where is the ${phrase} parking?`);
    await ask(stack, learner(otherPerson), theirWords);

    const personal = { person: [person.id] };
    const before = await keysOfOwners(redis(), personal);
    expect(
      before.some((key) => key.includes(":asked-by:")),
      "the person's index of asked questions",
    ).to.equal(true);
    expect((await askedBy(orgA, person.id)).length, "their question is cached and listed as theirs").to.be.above(0);
    const colleagueAsked = await askedBy(orgA, colleague.id);
    expect(colleagueAsked.length, "so is the colleague's").to.be.above(0);
    const entriesA = await entries(orgA);
    const entriesB = await entries(orgB);
    expect(entriesB.length, "the other organisation caches its own entry of the same words").to.be.above(0);
    const personAsked = await askedBy(orgA, person.id);
    const colleagueEntries = entriesA.filter((key) => colleagueAsked.some((hash) => key.endsWith(hash)));
    expect(colleagueEntries.length).to.be.above(0);

    const asked = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token, body: { confirm: person.email } });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    await waitFor(
      async () => {
        const progress = await api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token });
        return progress.body.erasure?.status === "completed" ? progress.body.erasure : undefined;
      },
      90_000,
      "the erasure",
    );

    expect(await keysOfOwners(redis(), personal), "keys the registry gives the person").to.deep.equal([]);
    const left = await entries(orgA);
    for (const hash of personAsked)
      expect(
        left.some((key) => key.endsWith(hash)),
        "an entry of their question",
      ).to.equal(false);
    expect(left).to.include.members(colleagueEntries);
    expect(await askedBy(orgA, colleague.id)).to.have.members(colleagueAsked);
    expect(await entries(orgB), "the other organisation's entries").to.deep.equal(entriesB);
  });
});
