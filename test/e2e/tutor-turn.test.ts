/**
 * The foundation's promise, end to end: dev-login → socket → POST a question → join → tokens
 * in order with consecutive seq → done; the stored answer equals the streamed tokens.
 */
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import { api, connect, join, login, recordEvents, waitForTurnEnd } from "../harness/client";
import { useStack, type Stack } from "../support/stack";

describe("a tutor turn over HTTP, BullMQ and Socket.IO", function () {
  this.timeout(60_000);
  let stack: Stack;
  let token: string;
  let socket: Socket;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    ({ token } = await login(stack.baseUrl, "employee@example.com"));
    socket = await connect(stack.baseUrl, token);
  });

  after(() => socket?.disconnect());

  it("streams tokens in order, ends with done, and stores exactly the streamed answer", async () => {
    stack.llm.reset();
    // Tokens written while an append is in flight travel together (workers/turns/turn-emitter.ts):
    // a model that pauses between tokens, as real ones do, shows the answer arriving piece by piece.
    stack.llm.setTokenDelay(5);
    const received = recordEvents(socket);
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token, body: { message: "How many days do I have to return an item for a refund?" } });
    expect(posted.status).to.equal(202);
    expect(posted.body).to.have.keys("session_id", "turn_id", "message_id");

    const ack = await join(socket, { sessionId: posted.body.session_id });
    expect(ack).to.deep.include({ ok: true, turnId: posted.body.turn_id });
    const events = await waitForTurnEnd(received, posted.body.turn_id);

    const seqs = events.map((e) => e.payload.seq);
    expect(seqs).to.deep.equal(
      seqs.map((_, i) => i + 1),
      "seq starts at 1 and rises by one, none twice",
    );
    const names = events.map((e) => e.event);
    expect(names.at(-1)).to.equal("done");
    expect(names.indexOf("grounding")).to.be.lessThan(names.indexOf("token"));
    const tokens = events.filter((e) => e.event === "token").map((e) => e.payload.content as string);
    expect(tokens.length).to.be.greaterThan(3);
    for (const event of events) expect(event.payload).to.include({ sessionId: posted.body.session_id, turnId: posted.body.turn_id });

    const grounding = events.find((e) => e.event === "grounding")!.payload;
    expect(grounding.rung).to.equal("chunks");
    expect(grounding.sources.map((s: { document: string }) => s.document)).to.include("Returns Policy Manual");

    const messages = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${posted.body.session_id}/messages`, { token });
    expect(messages.status).to.equal(200);
    const [user, assistant] = messages.body.messages;
    expect(user).to.include({ role: "user", id: posted.body.message_id });
    expect(assistant.role).to.equal("assistant");
    expect(assistant.content).to.equal(tokens.join(""));
    const done = events.at(-1)!.payload;
    expect(done.messageId).to.equal(assistant.id);
    expect(assistant.metadata).to.include({ rung: "chunks", retrieval_source: "semantic" });

    const sessions = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=tutor", { token });
    expect(sessions.body.sessions.map((s: { id: string }) => s.id)).to.include(posted.body.session_id);
  });

  it("replays a finished turn to a client that joins late, once and in order", async () => {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token, body: { message: "What happens to refunds of gift cards?" } });
    const watcher = await connect(stack.baseUrl, token);
    const first = recordEvents(watcher);
    await join(watcher, { sessionId: posted.body.session_id });
    const live = await waitForTurnEnd(first, posted.body.turn_id);
    watcher.disconnect();

    // A second client joins after the answer is complete: it gets the whole turn from the log.
    const late = await connect(stack.baseUrl, token);
    const replayed = recordEvents(late);
    const ack = await join(late, { sessionId: posted.body.session_id });
    expect(ack).to.include({ ok: true });
    expect((ack as { replayed: number }).replayed).to.equal(live.length);
    expect(replayed.map((e) => e.payload.seq)).to.deep.equal(live.map((e) => e.payload.seq));

    // Resuming from a seq gets only what came after it.
    const resumed = await connect(stack.baseUrl, token);
    const tail = recordEvents(resumed);
    await join(resumed, { sessionId: posted.body.session_id, turnId: posted.body.turn_id, lastSeq: 5 });
    expect(tail.map((e) => e.payload.seq)).to.deep.equal(live.slice(5).map((e) => e.payload.seq));
    late.disconnect();
    resumed.disconnect();
  });
});
