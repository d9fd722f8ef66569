/**
 * The LLM layer inside a real turn (HTTP → BullMQ → worker → Socket.IO): a stream that breaks
 * mid-answer surfaces as an error, then restarts and completes once; a rejected key stops the
 * turn with LLM_CONFIG_ERROR; streamed calls leave usage rows.
 */
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import { api, connect, join, login, recordEvents, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";

// The demo's returns manual answers it: the route is settled by those sources, and the only chat call is the streamed answer.
const QUESTION = "How many days do I have to return an item for a refund?";
const CUT_ANSWER = "Returns are accepted within thirty days of purchase when the item is unused and you still have the receipt.";
const FULL_ANSWER = "You have 30 days to return an unused item with its receipt [1]. Refunds go back to the original payment method.";

describe("the LLM layer in a full tutor turn", function () {
  this.timeout(60_000);
  let stack: Stack;
  let token: string;
  let user: { id: string; org_id: string };
  let socket: Socket;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    ({ token, user } = await login(stack.baseUrl, "employee@example.com"));
    socket = await connect(stack.baseUrl, token);
  });

  after(() => socket?.disconnect());

  // Other suites share this stack (and its request log): start and leave each test clean.
  beforeEach(() => stack.llm.reset());
  afterEach(() => {
    stack.llm.reset();
    // The workers in this process share their client's breaker; a failure scripted here must not bleed into other tests.
    stack.workers.deps.llm.cooldowns.clear();
  });

  async function ask(message: string): Promise<{ sessionId: string; turnId: string; events: ReceivedEvent[] }> {
    const received = recordEvents(socket);
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token, body: { message } });
    expect(posted.status).to.equal(202);
    await join(socket, { sessionId: posted.body.session_id });
    const events = await waitForTurnEnd(received, posted.body.turn_id, 30_000);
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id, events };
  }

  async function storedMessages(sessionId: string): Promise<Array<{ role: string; content: string; id: string }>> {
    const response = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token });
    expect(response.status).to.equal(200);
    return response.body.messages;
  }

  it("a stream cut after five tokens: error (not a hang), then restart, then one complete answer stored once", async () => {
    // Chat calls in a turn, in order: the generation (streamed; the sources settle the route, no classification call).
    // Only the first stream is cut; the job's retry streams the full answer.
    stack.llm.enqueueReply({ content: CUT_ANSWER, cutAfterTokens: 5 }, { content: FULL_ANSWER });
    const started = Date.now();
    const { sessionId, events } = await ask(QUESTION);
    expect(Date.now() - started).to.be.below(20_000);

    const calls = stack.llm.chatCalls();
    const shape = calls.map((request) => `${request.body.stream === true ? "stream" : "chat"} ${String(request.body.messages?.at(-1)?.content).slice(0, 120)}`);
    expect(calls.map((request) => request.body.stream === true)).to.deep.equal([true, true], `cut generation, retried generation; got:\n${shape.join("\n")}`);

    const seqs = events.map((e) => e.payload.seq);
    expect(seqs).to.deep.equal(
      seqs.map((_, i) => i + 1),
      "seq has no gaps or repeats across the retry",
    );
    const names = events.map((e) => e.event);
    const errorAt = names.indexOf("error");
    const restartAt = events.findIndex((e) => e.event === "stage" && e.payload.status === "restart");
    expect(errorAt, names.join(",")).to.be.greaterThan(-1);
    expect(restartAt).to.be.greaterThan(errorAt);
    expect(names.at(-1)).to.equal("done");
    expect(names.filter((name) => name === "error")).to.have.length(1);
    expect(names.filter((name) => name === "done")).to.have.length(1);

    const error = events[errorAt]!.payload;
    expect(error).to.include({ code: "LLM_UNAVAILABLE", willRetry: true });
    expect(error.message).to.be.a("string").and.not.be.empty;

    const tokensBetween = (from: number, to: number) =>
      events
        .slice(from, to)
        .filter((e) => e.event === "token")
        .map((e) => e.payload.content as string);
    // The five tokens streamed before the cut, all shown before the error (tokens that arrive
    // during one Redis round trip travel as one event: workers/turns/turn-emitter.ts).
    const before = tokensBetween(0, errorAt);
    expect(before.join("")).to.equal(
      CUT_ANSWER.match(/\s*\S+/g)!
        .slice(0, 5)
        .join(""),
    );
    const after = tokensBetween(restartAt, events.length).join("");
    expect(after).to.equal(FULL_ANSWER);

    const messages = await storedMessages(sessionId);
    const assistants = messages.filter((m) => m.role === "assistant");
    expect(assistants).to.have.length(1);
    expect(assistants[0]!.content).to.equal(FULL_ANSWER, "only the tokens after the restart marker, exactly once");
    expect(events.at(-1)!.payload.messageId).to.equal(assistants[0]!.id);
  });

  it("a rejected key during generation ends the turn with LLM_CONFIG_ERROR naming LLM_API_KEY, without retrying", async () => {
    const key = stack.env.LLM_API_KEY!;
    stack.llm.enqueueReply(
      { status: 401, body: { error: { message: `Incorrect API key provided: ${key}`, type: "invalid_request_error", code: "invalid_api_key" } } },
      { content: "never asked" },
    );
    const { sessionId, events } = await ask(QUESTION);
    const names = events.map((e) => e.event);
    expect(names.at(-1)).to.equal("error");
    expect(names).not.to.include("done");
    expect(events.some((e) => e.event === "stage" && e.payload.status === "restart")).to.equal(false);
    const error = events.at(-1)!.payload;
    expect(error.code).to.equal("LLM_CONFIG_ERROR");
    expect(error.willRetry).to.equal(undefined);
    expect(error.message).to.contain("LLM_API_KEY");
    expect(JSON.stringify(events)).not.to.contain(key);
    expect(stack.llm.chatCalls().filter((request) => request.body.stream === true)).to.have.length(1, "a 401 is not retried by the client nor by the job");
    // The turn's final status: one empty `failed` reply, so the history shows the gap.
    const replies = (await storedMessages(sessionId)).filter((m) => m.role === "assistant") as Array<{ content: string; status?: string }>;
    expect(replies.map((m) => [m.status, m.content])).to.deep.equal([["failed", ""]]);
  });

  it("writes a usage row for the streamed generation call (streamed = true, org and user set)", async () => {
    const db = stack.workers.deps.db;
    const earlier = new Set((await db("llm_usage_log").select("id")).map((row) => row.id as string));
    const { events } = await ask(QUESTION);
    expect(events.at(-1)!.event).to.equal("done");
    const rows = (await db("llm_usage_log").where({ user_id: user.id }).orderBy("created_at", "asc")).filter((row) => !earlier.has(row.id));
    const generation = rows.filter((row) => row.use_case === "generation");
    expect(generation, JSON.stringify(rows)).to.have.length(1);
    expect(generation[0]).to.include({ streamed: true, org_id: user.org_id, user_id: user.id, model: "scripted-model" });
    expect(generation[0].completion_tokens).to.be.greaterThan(0);
    expect(generation[0].prompt_tokens).to.be.greaterThan(0);
    expect(generation[0].duration_ms).to.be.at.least(0);
    // The sources settled the route: no classification call, so no non-streamed chat row.
    const classification = rows.filter((row) => row.use_case === "tutor" && !String(row.model).startsWith("embedding:"));
    expect(classification, "no classification call").to.deep.equal([]);
  });
});
