/**
 * The tutor's per-user rate limit: 30 messages a minute. The 31st is refused with 429
 * RATE_LIMITED and a retry_after before anything is stored or queued; other users are not
 * affected. Uses fresh employees so no other suite's traffic counts against the limit.
 *
 * The workers are paused while the 30 accepted turns are posted and those turns are removed
 * from the queues afterwards: the test is about the HTTP edge, and 30 turns answered at once
 * would only load the shared stack (and the embedded PGlite, which misbehaves under heavy
 * multi-connection load) for the suites that follow.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Refusal } from "../../../lib/refusal";
import { RateLimiter } from "../../../server/middleware/rate-limit";
import { api } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, removeFreshEmployees } from "../../workers/tutor/helpers";

describe("the tutor, complete: rate limit", function () {
  this.timeout(90_000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });

  afterEach(() => stack.llm.reset());
  after(() => removeFreshEmployees(stack));

  const counts = async (userId: string) => {
    const db = stack.server.deps.db;
    const messages = await db("chat_messages as m")
      .join("chat_sessions as s", "s.id", "m.session_id")
      .where({ "s.user_id": userId })
      .count<{ count: string }[]>("* as count")
      .first();
    const sessions = await db("chat_sessions").where({ user_id: userId }).count<{ count: string }[]>("* as count").first();
    return { messages: Number(messages?.count), sessions: Number(sessions?.count) };
  };

  it("refuses the 31st message in a minute with 429 RATE_LIMITED and stores nothing for it; other users are still served", async () => {
    const learner = await freshEmployee(stack);
    const limit = stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE;
    expect(limit).to.equal(30);

    const accepted: string[] = [];
    await Promise.all(stack.workers.workers.map((worker) => worker.pause()));
    try {
      for (let i = 1; i <= limit; i++) {
        const response = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: `hola ${i}` } });
        expect(response.status, `request ${i}`).to.equal(202);
        accepted.push(response.body.turn_id);
      }
      const before = await counts(learner.userId);
      expect(before).to.deep.equal({ messages: limit, sessions: limit });

      const refused = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "hola otra vez" } });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal("RATE_LIMITED");
      expect(refused.body.error.retry_after).to.be.a("number").within(1, 60);
      expect(refused.headers.get("retry-after")).to.equal(String(refused.body.error.retry_after));
      expect(await counts(learner.userId)).to.deep.equal(before);

      // Into an existing session too: refused, and nothing stored or touched.
      const session = await stack.server.deps.db("chat_sessions").where({ user_id: learner.userId }).first();
      const again = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: learner.token,
        body: { message: "¿sigues ahí?", context: { session_id: session.id } },
      });
      expect(again.status).to.equal(429);
      expect(await counts(learner.userId)).to.deep.equal(before);
      const untouched = await stack.server.deps.db("chat_sessions").where({ id: session.id }).first();
      expect(untouched.updated_at.getTime()).to.equal(session.updated_at.getTime());

      // Nothing was queued for the refused requests: exactly the accepted turns are waiting.
      const generate = stack.server.deps.producer.queue("tutor-generate");
      const waiting = (await generate.getJobs(["waiting-children", "waiting", "prioritized"])).filter((job) => job.data.userId === learner.userId);
      expect(waiting.map((job) => job.data.turnId).sort()).to.deep.equal([...accepted].sort());
      for (const job of waiting) await job.remove({ removeChildren: true });
    } finally {
      await Promise.all(stack.workers.workers.map((worker) => worker.resume()));
    }

    // The limit is per user: someone else is served at once.
    const other = await freshEmployee(stack);
    const turn = await ask(stack, other, "hola");
    expect(turn.done).to.not.equal(undefined);
    expect(turn.errors).to.deep.equal([]);
  });

  it("counts each window under its own key and admits in all or none: a refusal gives back what every window took", async () => {
    const redis = stack.server.deps.redis;
    const limiter = new RateLimiter(redis);
    const principal = { userId: randomUUID(), orgId: randomUUID() };
    const userKey = `skillnet:rate-window:test-bucket:user:${principal.userId}`;
    const orgKey = `skillnet:rate-window:test-bucket:org:${principal.orgId}`;
    const limits = { perUser: 3, perOrganisation: 2 };
    await limiter.consumeFor(principal, "test-bucket", limits);
    await limiter.consumeFor(principal, "test-bucket", limits);
    const refused = await limiter.consumeFor(principal, "test-bucket", limits).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(Refusal);
    expect((refused as Refusal).code).to.equal("RATE_LIMITED");
    expect((refused as Refusal).details).to.include({ limit: "organisation" });
    expect((refused as Refusal).details?.retry_after).to.be.within(1, 60);
    expect([await redis.get(userKey), await redis.get(orgKey)]).to.deep.equal(["2", "2"], "the refused request left no count in either window");
    expect(await redis.pttl(userKey)).to.be.within(1, 60_000);

    // A caller's window (a client IP) has no scope in its key.
    const caller = `203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
    await limiter.consume(caller, { bucket: "test-bucket", limit: 1, windowMs: 60_000 });
    expect(await redis.get(`skillnet:rate-window:test-bucket:${caller}`)).to.equal("1");
    await redis.del(userKey, orgKey, `skillnet:rate-window:test-bucket:${caller}`);
  });
});
