/** Answer feedback: only the owner's own answers, re-rating replaces, stored with the rung and sources. */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, join, waitForTurnEnd } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";

describe("answer feedback (POST /api/v1/chat/messages/:id/feedback)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let owner: Person;
  let other: Person;
  let answerId: string;
  let questionId: string;
  let sessionId: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    owner = await freshUser(stack);
    other = await freshUser(stack);
    const started = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: owner.token,
      body: { message: "How many days do customers have to return an item?" },
    });
    sessionId = started.body.session_id;
    questionId = started.body.message_id;
    await join(owner.socket, { sessionId });
    const events = await waitForTurnEnd(owner.events, started.body.turn_id);
    answerId = events.find((e) => e.event === "done")!.payload.messageId;
  });
  after(() => cleanUp(stack));

  const rate = (token: string, id: string, body: unknown) => api(stack.baseUrl, "POST", `/api/v1/chat/messages/${id}/feedback`, { token, body });

  it("stores a rating with the answer's rung and sources, and a second rating replaces the first", async () => {
    const first = await rate(owner.token, answerId, { rating: "down", comment: "It did not name the form to fill in." });
    expect(first.status).to.equal(200);
    expect(first.body.feedback).to.include({ message_id: answerId, rating: "down", comment: "It did not name the form to fill in." });
    const answer = await stack.server.deps.db("chat_messages").where({ id: answerId }).first("metadata");
    const stored = await stack.server.deps.db("chat_feedback").where({ message_id: answerId }).first();
    expect(stored.rung).to.equal(answer.metadata.rung).and.to.be.a("string");
    expect(stored.sources).to.deep.equal(answer.metadata.sources);

    const second = await rate(owner.token, answerId, { rating: "up" });
    expect(second.body.feedback).to.include({ rating: "up", comment: null });
    expect(await stack.server.deps.db("chat_feedback").where({ message_id: answerId }).count("* as n")).to.deep.equal([{ n: "1" }]);
    const listed = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/feedback`, { token: owner.token });
    expect(listed.body.feedback.map((f: { message_id: string; rating: string }) => [f.message_id, f.rating])).to.deep.equal([[answerId, "up"]]);
  });

  it("answers 404 for someone else's answer, a question, or an unknown id, and stores nothing", async () => {
    for (const [token, id] of [
      [other.token, answerId],
      [owner.token, questionId],
      [owner.token, randomUUID()],
    ] as const) {
      const refused = await rate(token, id, { rating: "down" });
      expect(refused.status, id).to.equal(404);
      expect(refused.body.error.code).to.equal("NOT_FOUND");
    }
    const theirs = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/feedback`, { token: other.token });
    expect(theirs.body.feedback).to.deep.equal([]);
    expect(await stack.server.deps.db("chat_feedback").where({ user_id: other.id }).count("* as n")).to.deep.equal([{ n: "0" }]);
  });

  it("refuses a bad rating or a comment over 1,000 characters with 400", async () => {
    for (const body of [{ rating: "meh" }, {}, { rating: "up", comment: "x".repeat(1_001) }, { rating: "up", extra: 1 }]) {
      const refused = await rate(owner.token, answerId, body);
      expect(refused.status, JSON.stringify(body).slice(0, 40)).to.equal(400);
      expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
    }
    expect((await rate(owner.token, answerId, { rating: "up", comment: "y".repeat(1_000) })).status).to.equal(200);
  });
});
