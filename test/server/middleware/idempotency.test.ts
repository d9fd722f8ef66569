/**
 * Idempotency-Key on the endpoints that create something: a retry with the same key and body is
 * answered from memory (one turn, one job, one model call; one document), a different body is a
 * 422, concurrent duplicates make one turn, a replay costs no rate-limit slot, and an error
 * answer does not pin the key.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, join, waitForTurnEnd, type ApiResponse } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { freshEmployee, generationRequestsFor, removeFreshEmployees, type Learner } from "../../workers/tutor/helpers";

describe("Idempotency-Key", function () {
  const stack = stackSuite(this, { cleanUp: removeFreshEmployees });

  const chat = (learner: Learner, body: unknown, key?: string, path = "/api/v1/chat"): Promise<ApiResponse> =>
    api(stack.baseUrl, "POST", path, { token: learner.token, body, ...(key !== undefined ? { headers: { "Idempotency-Key": key } } : {}) });

  async function userMessages(content: string): Promise<Array<{ turn_id: string; session_id: string }>> {
    return stack.server.deps.db("chat_messages").where({ role: "user", content }).select("turn_id", "session_id");
  }

  it("answers the same key and body twice with the same response and runs the turn once (one model call)", async () => {
    const learner = await freshEmployee(stack);
    const question = `How long is the return window? ${randomUUID()}`;
    const key = randomUUID();
    const first = await chat(learner, { message: question }, key);
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.headers.get("idempotent-replayed")).to.equal(null);
    await join(learner.socket, { sessionId: first.body.session_id });
    const second = await chat(learner, { message: question }, key);
    expect(second.status).to.equal(202);
    expect(second.body).to.deep.equal(first.body);
    expect(second.headers.get("idempotent-replayed")).to.equal("true");

    await waitForTurnEnd(learner.events, first.body.turn_id);
    const third = await chat(learner, { message: question }, key);
    expect(third.body).to.deep.equal(first.body, "still the same answer after the turn ended");
    // Give a (wrongly) duplicated job time to reach the model before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await userMessages(question)).to.have.length(1);
    expect(generationRequestsFor(stack, question)).to.have.length(1);
    const done = learner.events.filter((e) => e.event === "done" && e.payload.turnId === first.body.turn_id);
    expect(done).to.have.length(1);
  });

  it("refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED, nothing stored", async () => {
    const learner = await freshEmployee(stack);
    const key = randomUUID();
    const first = await chat(learner, { message: `first ${key}`, context: {} }, key);
    expect(first.status).to.equal(202);
    const other = await chat(learner, { message: `second ${key}` }, key);
    expect(other.status).to.equal(422);
    expect(other.body.error.code).to.equal("IDEMPOTENCY_KEY_REUSED");
    expect(await userMessages(`second ${key}`)).to.have.length(0);
    // Key order does not make a body different.
    const reordered = await chat(learner, { context: {}, message: `first ${key}` }, key);
    expect(reordered.status).to.equal(202);
    expect(reordered.body).to.deep.equal(first.body);
  });

  it("makes one turn of two concurrent requests with the same key", async () => {
    const learner = await freshEmployee(stack);
    const question = `Concurrent duplicate ${randomUUID()}`;
    const key = randomUUID();
    const answers = await Promise.all([
      chat(learner, { message: question }, key),
      chat(learner, { message: question }, key),
      chat(learner, { message: question }, key),
    ]);
    const accepted = answers.filter((a) => a.status === 202);
    expect(
      answers.every((a) => a.status === 202 || (a.status === 409 && a.body.error.code === "IDEMPOTENCY_IN_PROGRESS")),
      JSON.stringify(answers.map((a) => a.body)),
    ).to.equal(true);
    expect(
      accepted.filter((a) => a.headers.get("idempotent-replayed") === null),
      "exactly one request ran; the rest waited and replayed it or got 409",
    ).to.have.length(1);
    for (const answer of accepted) expect(answer.body).to.deep.equal(accepted[0]!.body);
    const rows = await userMessages(question);
    expect(rows).to.have.length(1);
    expect(rows[0]!.turn_id).to.equal(accepted[0]!.body.turn_id);
  });

  it("keeps keys per user: another user's identical key and body is their own turn", async () => {
    const [one, two] = [await freshEmployee(stack), await freshEmployee(stack)];
    const key = randomUUID();
    const body = { message: `Shared key ${key}` };
    const first = await chat(one, body, key);
    const second = await chat(two, body, key);
    expect(first.status).to.equal(202);
    expect(second.status).to.equal(202);
    expect(second.body.turn_id).to.not.equal(first.body.turn_id);
    expect(second.headers.get("idempotent-replayed")).to.equal(null);
  });

  it("validates the header: empty, over 255 characters or not printable → 400", async () => {
    const learner = await freshEmployee(stack);
    for (const key of ["", "k".repeat(256), "tab\there"]) {
      const refused = await chat(learner, { message: "hello" }, key);
      expect(refused.status, JSON.stringify(key)).to.equal(400);
      expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
      expect(refused.body.error.message).to.match(/Idempotency-Key/);
    }
    const longest = await chat(learner, { message: `longest key ${randomUUID()}` }, "k".repeat(255));
    expect(longest.status).to.equal(202);
  });

  it("does not pin a key to an error: a rejected body, then the corrected one under the same key, makes a turn", async () => {
    const learner = await freshEmployee(stack);
    const key = randomUUID();
    const bad = await chat(learner, { message: "   " }, key);
    expect(bad.status).to.equal(400);
    const good = await chat(learner, { message: `corrected ${key}` }, key);
    expect(good.status).to.equal(202);
    expect(await userMessages(`corrected ${key}`)).to.have.length(1);
  });

  it("replays without taking a rate-limit slot", async () => {
    const learner = await freshEmployee(stack);
    const key = randomUUID();
    const first = await chat(learner, { message: `limited ${key}` }, key);
    expect(first.status).to.equal(202);
    // Fill the employee's tutor window to its limit, as if they had just sent that many messages.
    const window = `skillnet:rate-window:tutor:user:${learner.userId}`;
    const limit = stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE;
    await stack.server.deps.redis.incrby(window, limit);
    const replay = await chat(learner, { message: `limited ${key}` }, key);
    expect(replay.status).to.equal(202);
    expect(replay.body).to.deep.equal(first.body);
    const fresh = await chat(learner, { message: `new ${key}` }, randomUUID());
    expect(fresh.status).to.equal(429);
    expect(Number(await stack.server.deps.redis.get(window))).to.equal(limit + 1, "the first request and the fillers; the replay added no count");
    await stack.server.deps.redis.del(window);
  });

  it("works on the admin assistant endpoint: one turn for the same key", async () => {
    const admin = await freshEmployee(stack, { role: "admin" });
    const key = randomUUID();
    const message = `How many employees are in Sales? ${key}`;
    const first = await chat(admin, { message }, key, "/api/v1/chat/admin");
    const second = await chat(admin, { message }, key, "/api/v1/chat/admin");
    expect(first.status).to.equal(202);
    expect(second.status).to.equal(202);
    expect(second.body).to.deep.equal(first.body);
    expect(await userMessages(message)).to.have.length(1);
    const other = await chat(admin, { message: `${message}!` }, key, "/api/v1/chat/admin");
    expect(other.status).to.equal(422);
  });

  describe("document uploads", () => {
    async function uploadWithKey(token: string, key: string, bytes: Buffer, fields: Record<string, string> = {}): Promise<ApiResponse> {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append("file", new Blob([new Uint8Array(bytes)], { type: "text/markdown" }), "policy.md");
      const response = await fetch(`${stack.baseUrl}/api/v1/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "Idempotency-Key": key },
        body: form,
      });
      return { status: response.status, body: await response.json(), headers: response.headers };
    }

    it("makes one document of the same upload twice and answers both alike; another file under the key is a 422", async () => {
      const admin = await freshEmployee(stack, { role: "admin" });
      const key = randomUUID();
      const bytes = Buffer.from(`# Idempotent upload ${key}\n\nReturns are accepted for 30 days.\n`);
      const first = await uploadWithKey(admin.token, key, bytes, { title: `Upload ${key}` });
      expect(first.status, JSON.stringify(first.body)).to.equal(202);
      expect(first.body.duplicate).to.equal(false);
      const second = await uploadWithKey(admin.token, key, bytes, { title: `Upload ${key}` });
      expect(second.status).to.equal(202, "the first answer, not the dedupe's 200");
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get("idempotent-replayed")).to.equal("true");
      const documents = await stack.server.deps.db("documents").where({ title: `Upload ${key}` });
      expect(documents).to.have.length(1);

      const otherFile = await uploadWithKey(admin.token, key, Buffer.from(`# Another ${key}\n`), { title: `Upload ${key}` });
      expect(otherFile.status).to.equal(422);
      expect(otherFile.body.error.code).to.equal("IDEMPOTENCY_KEY_REUSED");
      const otherFields = await uploadWithKey(admin.token, key, bytes, { title: `Renamed ${key}` });
      expect(otherFields.status).to.equal(422);
      await stack.server.deps.db("documents").where({ id: first.body.document_id }).delete();
    });
  });
});
