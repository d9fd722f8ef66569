/** The chat API's edges: auth, ownership, validation, deletion — each a clear error, never a 500. */
import { expect } from "chai";
import { api, connect, join, login, waitForTurnEnd, recordEvents } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { dropOrganisations } from "../../../support/organizations";

describe("chat API edges", function () {
  this.timeout(60_000);
  let stack: Stack;
  let employee: string;
  let colleague: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    employee = (await login(stack.baseUrl, "employee@example.com")).token;
    const others = await stack.server.deps
      .db("users")
      .where({ org_id: stack.demo.orgId, role: "employee" })
      .whereNot({ email: "employee@example.com" })
      .first();
    colleague = (await login(stack.baseUrl, others.email)).token;
  });

  it("refuses requests without a token or with a forged one (401 with a code)", async () => {
    const missing = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions");
    expect(missing.status).to.equal(401);
    expect(missing.body.error.code).to.equal("UNAUTHORIZED");
    const forged = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: `${employee.slice(0, -4)}abcd`, body: { message: "hi" } });
    expect(forged.status).to.equal(401);
  });

  it("refuses a socket handshake without a valid token", async () => {
    let refused: Error | undefined;
    try {
      (await connect(stack.baseUrl, undefined)).disconnect();
    } catch (error) {
      refused = error as Error;
    }
    expect(refused?.message).to.match(/UNAUTHORIZED/);
    let forged: Error | undefined;
    await connect(stack.baseUrl, "not-a-jwt").catch((error) => (forged = error));
    expect(forged?.message).to.match(/UNAUTHORIZED/);
  });

  it("rejects malformed input with 400 and a code, storing nothing", async () => {
    const marker = `bad-input-${Date.now()}`;
    const tooLong = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: marker + "x".repeat(10_001) } });
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.error.code).to.equal("VALIDATION_ERROR");
    expect(tooLong.body.error.message).to.match(/10000 characters/);
    const blank = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "   " } });
    expect(blank.status).to.equal(400);
    const nul = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: `${marker}\u0000` } });
    expect(nul.status).to.equal(400);
    const badJson = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, rawBody: `{"message": "${marker}",` });
    expect(badJson.status).to.equal(400);
    expect(badJson.body.error.code).to.equal("BAD_REQUEST");
    const badId = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: marker, context: { session_id: "not-a-uuid" } } });
    expect(badId.status).to.equal(400);
    expect(badId.body.error.message).to.match(/session_id/);
    const unknownCourse = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: marker, context: { course_id: "00000000-0000-4000-8000-000000000000" } },
    });
    expect(unknownCourse.status).to.equal(404);
    const badPathId = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions/123/messages", { token: employee });
    expect(badPathId.status).to.equal(400);
    const wrongMethod = await api(stack.baseUrl, "PUT", "/api/v1/chat", { token: employee, body: { message: marker } });
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.body.error.code).to.equal("METHOD_NOT_ALLOWED");
    const stored = await stack.server.deps.db("chat_messages").where("content", "like", `%${marker}%`).first("id");
    expect(stored).to.equal(undefined);
  });

  it("continues a session only through the route of its kind: a tutor session is not an admin session, nor the reverse", async () => {
    const admin = (await login(stack.baseUrl, "admin@example.com")).token;
    const tutor = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: admin, body: { message: "What is the refund window?" } });
    expect(tutor.status).to.equal(202);
    const assistant = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: admin, body: { message: "How many learners are there?" } });
    expect(assistant.status).to.equal(202);
    const asAdmin = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: admin, body: { message: "and now?", session_id: tutor.body.session_id } });
    expect(asAdmin.status).to.equal(404);
    const asTutor = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: admin,
      body: { message: "and now?", context: { session_id: assistant.body.session_id } },
    });
    expect(asTutor.status).to.equal(404);
    const followUp = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: admin,
      body: { message: "And for gift cards?", context: { session_id: tutor.body.session_id } },
    });
    expect(followUp.status).to.equal(202);
    expect(followUp.body.session_id).to.equal(tutor.body.session_id);
    const stored = await stack.server.deps
      .db("chat_messages")
      .where({ session_id: tutor.body.session_id, role: "user" })
      .orderBy("created_at")
      .pluck("content");
    expect(stored).to.deep.equal(["What is the refund window?", "And for gift cards?"]);
  });

  it("takes the session as top-level session_id on both chat endpoints (the tutor's old context.session_id still works)", async () => {
    const first = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "What is the refund window?" } });
    expect(first.status).to.equal(202);
    const sessionId: string = first.body.session_id;
    const topLevel = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "And for gift cards?", session_id: sessionId } });
    expect(topLevel.status, JSON.stringify(topLevel.body)).to.equal(202);
    expect(topLevel.body.session_id, "a top-level session_id continues the session instead of starting a new one").to.equal(sessionId);
    const oldForm = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "And online orders?", context: { session_id: sessionId } },
    });
    expect(oldForm.status).to.equal(202);
    expect(oldForm.body.session_id).to.equal(sessionId);
    const same = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "And in store?", session_id: sessionId, context: { session_id: sessionId } },
    });
    expect(same.body.session_id).to.equal(sessionId);
    const stored = await stack.server.deps.db("chat_messages").where({ session_id: sessionId, role: "user" }).orderBy("created_at").pluck("content");
    expect(stored).to.deep.equal(["What is the refund window?", "And for gift cards?", "And online orders?", "And in store?"]);

    const other = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "A second conversation" } });
    const conflicting = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "which one?", session_id: sessionId, context: { session_id: other.body.session_id } },
    });
    expect(conflicting.status).to.equal(400);
    expect(conflicting.body.error.code).to.equal("VALIDATION_ERROR");
    expect(conflicting.body.error.message).to.match(/session_id and context\.session_id name different sessions/);
  });

  it("refuses an unknown field in any JSON body with 400 VALIDATION_ERROR naming it, storing nothing", async () => {
    const marker = `unknown-field-${Date.now()}`;
    const admin = (await login(stack.baseUrl, "admin@example.com")).token;
    const attempts: Array<{ path: string; token?: string; body: Record<string, unknown>; field: string }> = [
      { path: "/api/v1/chat", token: employee, body: { message: marker, sessionId: "typo" }, field: "body.sessionId" },
      { path: "/api/v1/chat", token: employee, body: { message: marker, context: { course: "x" } }, field: "body.context.course" },
      { path: "/api/v1/chat/admin", token: admin, body: { message: marker, context: {} }, field: "body.context" },
      { path: "/api/v1/auth/dev-login", body: { email: "employee@example.com", password: "x" }, field: "body.password" },
    ];
    for (const attempt of attempts) {
      const refused = await api(stack.baseUrl, "POST", attempt.path, { token: attempt.token, body: attempt.body });
      expect(refused.status, `${attempt.path} ${JSON.stringify(attempt.body)}`).to.equal(400);
      expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
      expect(refused.body.error.fields.map((f: { path: string }) => f.path)).to.include(attempt.field);
      expect(refused.body.error.message).to.include(attempt.field);
    }
    const stored = await stack.server.deps.db("chat_messages").where("content", "like", `%${marker}%`).first("id");
    expect(stored).to.equal(undefined);
  });

  it("keeps sessions private: another user's session is a 404 over HTTP and refused over the socket", async () => {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "What is the refund window?" } });
    expect(posted.status).to.equal(202);
    const sessionId = posted.body.session_id;

    const read = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token: colleague });
    expect(read.status).to.equal(404);
    expect(read.body.error.code).to.equal("NOT_FOUND");
    const remove = await api(stack.baseUrl, "DELETE", `/api/v1/chat/sessions/${sessionId}`, { token: colleague });
    expect(remove.status).to.equal(404);
    const hijack = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: colleague, body: { message: "me too", context: { session_id: sessionId } } });
    expect(hijack.status).to.equal(404);
    expect(hijack.body.error.code).to.equal("NOT_FOUND");
    const own = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token: employee });
    expect(
      own.body.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content),
      "the refused message was not stored in the owner's session",
    ).to.deep.equal(["What is the refund window?"]);
    const listed = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: colleague });
    expect(listed.body.sessions.map((s: { id: string }) => s.id)).to.not.include(sessionId);

    const socket = await connect(stack.baseUrl, colleague);
    const received = recordEvents(socket);
    const ack = await join(socket, { sessionId });
    expect(ack).to.deep.equal({ ok: false, error: { code: "NOT_FOUND", message: "Chat session not found" } });
    const invalid = await join(socket, { sessionId: "nope" });
    expect(invalid.ok).to.equal(false);

    // The owner's turn completes; the refused socket saw none of it.
    const owner = await connect(stack.baseUrl, employee);
    const mine = recordEvents(owner);
    await join(owner, { sessionId });
    await waitForTurnEnd(mine, posted.body.turn_id);
    expect(received.filter((e) => e.payload?.sessionId === sessionId)).to.have.length(0);
    socket.disconnect();
    owner.disconnect();
  });

  it("continues a session and deletes it with its messages", async () => {
    const socket = await connect(stack.baseUrl, employee);
    const received = recordEvents(socket);
    const first = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: employee, body: { message: "Can I exchange an item without a receipt?" } });
    await join(socket, { sessionId: first.body.session_id });
    await waitForTurnEnd(received, first.body.turn_id);
    const second = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "And for gift cards?", context: { session_id: first.body.session_id } },
    });
    expect(second.status).to.equal(202);
    expect(second.body.session_id).to.equal(first.body.session_id);
    await waitForTurnEnd(received, second.body.turn_id);
    socket.disconnect();

    const messages = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${first.body.session_id}/messages`, { token: employee });
    expect(messages.body.messages.map((m: { role: string }) => m.role)).to.deep.equal(["user", "assistant", "user", "assistant"]);
    expect(messages.body.session.title).to.equal("Can I exchange an item without a receipt?");

    const deleted = await api(stack.baseUrl, "DELETE", `/api/v1/chat/sessions/${first.body.session_id}`, { token: employee });
    expect(deleted.status).to.equal(204);
    const left = await stack.server.deps.db("chat_messages").where({ session_id: first.body.session_id }).count<{ count: string }[]>("* as count").first();
    expect(Number(left!.count)).to.equal(0);
    const gone = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${first.body.session_id}/messages`, { token: employee });
    expect(gone.status).to.equal(404);
  });

  it("answers health, readiness, dev-login errors and unknown routes with codes", async () => {
    expect((await api(stack.baseUrl, "GET", "/healthz")).body).to.deep.equal({ status: "ok" });
    const ready = await api(stack.baseUrl, "GET", "/readyz");
    expect(ready.status).to.equal(200);
    expect(ready.body.checks).to.deep.equal({ redis: "ok", postgres: "ok" });
    const stranger = await api(stack.baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email: "nobody@example.com" } });
    expect(stranger.status).to.equal(401);
    const notEmail = await api(stack.baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email: "nope" } });
    expect(notEmail.status).to.equal(400);
    const unknown = await api(stack.baseUrl, "GET", "/api/v1/nothing-here", { token: employee });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal("NOT_FOUND");
  });

  it("opens Bull Board to admins only", async () => {
    expect((await api(stack.baseUrl, "GET", "/admin/queues")).status).to.equal(401);
    expect((await api(stack.baseUrl, "GET", "/admin/queues", { token: employee })).status).to.equal(403);
    const admin = (await login(stack.baseUrl, "admin@example.com")).token;
    const board = await api(stack.baseUrl, "GET", "/admin/queues/api/queues", { token: admin });
    expect(board.status).to.equal(200);
    expect(board.body.queues.map((q: { name: string }) => q.name)).to.include.members(["tutor-generate", "chat-summarise"]);
    const form = (token: string) => ({ rawBody: `token=${token}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    const signIn = await api(stack.baseUrl, "POST", "/admin/login", form(admin));
    expect(signIn.status).to.equal(303);
    expect(signIn.headers.get("set-cookie")).to.match(/skillnet_token=.*httponly/i);
    expect((await api(stack.baseUrl, "POST", "/admin/login", form(employee))).status).to.equal(403);

    // An admin of another tenant must not see (or control) anyone's jobs.
    const db = stack.server.deps.db;
    const [org] = await db("organizations")
      .insert({ name: "Other Co", slug: `other-${Date.now()}` })
      .returning("id");
    const [otherAdmin] = await db("users")
      .insert({ org_id: org.id, email: `boss-${Date.now()}@other.example`, name: "Other Admin", role: "admin" })
      .returning("id");
    const foreign = await stack.server.deps.tokens.sign({ userId: otherAdmin.id, orgId: org.id, role: "admin" });
    expect((await api(stack.baseUrl, "GET", "/admin/queues/api/queues", { token: foreign })).status).to.equal(403);
    expect((await api(stack.baseUrl, "POST", "/admin/login", form(foreign))).status).to.equal(403);
    await dropOrganisations(db, [org.id]);
  });

  it("exposes Prometheus metrics: HTTP by route, queue depths, finished turns", async () => {
    const metrics = await api(stack.baseUrl, "GET", "/metrics");
    expect(metrics.status).to.equal(200);
    const text = String(metrics.body);
    expect(text).to.match(/skillnet_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/chat",status="202"\} [1-9]/);
    expect(text).to.match(/skillnet_queue_jobs\{queue="tutor-generate",state="completed"\} [1-9]/);
    expect(text).to.match(/skillnet_tutor_turns_total\{outcome="done"\} [1-9]/);
    expect(text).to.include('skillnet_tutor_stage_latency_seconds_bucket{le="0.05",stage="generation"');
  });

  it("keeps a session's course context for follow-ups that do not restate it", async () => {
    const courseId = stack.demo.courseIds.returnsEssentials;
    const first = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "What does module 1 cover?", context: { course_id: courseId } },
    });
    expect(first.status).to.equal(202);
    const second = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: employee,
      body: { message: "And module 2?", context: { session_id: first.body.session_id } },
    });
    expect(second.status).to.equal(202);
    const job = await stack.server.deps.producer.queue("tutor-generate").getJob(`${second.body.turn_id}-generate`);
    expect(job?.data.courseId).to.equal(courseId);
  });

  it("keeps each organisation's documents and sessions out of another's reach", async () => {
    const db = stack.server.deps.db;
    const [org] = await db("organizations")
      .insert({ name: "Elsewhere", slug: `elsewhere-${Date.now()}` })
      .returning("id");
    const [admin] = await db("users")
      .insert({ org_id: org.id, email: `admin-${Date.now()}@elsewhere.example`, name: "Else Admin", role: "admin" })
      .returning("id");
    try {
      const token = await stack.server.deps.tokens.sign({ userId: admin.id, orgId: org.id, role: "admin" });
      const foreignDocument = await api(stack.baseUrl, "GET", `/api/v1/documents/${stack.demo.documentIds.returnsPolicy}`, { token });
      expect(foreignDocument.status).to.equal(404);
      const listed = await api(stack.baseUrl, "GET", "/api/v1/documents", { token });
      expect(listed.body.documents).to.deep.equal([]);
      const removed = await api(stack.baseUrl, "DELETE", `/api/v1/documents/${stack.demo.documentIds.warehouseSafety}?force=true`, { token });
      expect(removed.status).to.equal(404);
      const course = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token,
        body: { message: "hi", context: { course_id: stack.demo.courseIds.returnsEssentials } },
      });
      expect(course.status).to.equal(404);
      expect(await db("documents").where({ id: stack.demo.documentIds.warehouseSafety }).first("id")).to.exist;
    } finally {
      await dropOrganisations(db, [org.id]);
    }
  });
});
