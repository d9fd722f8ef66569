/**
 * Cancelling a tutor turn, over HTTP and over the socket: the model stream stops within a second,
 * the partial answer is stored as `cancelled`, `done` says so and nothing runs after it; a turn
 * cancelled before generation never calls the model; a finished turn is a 409 and someone
 * else's turn a 404.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { ChatRequest } from "../../../offline-model/responder";
import { api, join, waitFor, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { countTokens } from "../../../workers/llm/tokens";
import { STEP_DOWN_MARKER } from "../../../workers/tutor/step-down";
import { ask, CLASSIFY_MARKER, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, scriptedResponder, type Learner } from "./helpers";

const LONG_ANSWER = Array.from({ length: 120 }, (_, i) => `Sentence ${i + 1} about the returns policy.`).join(" ");
const TOKEN_DELAY_MS = 40;

describe("cancelling a tutor turn", function () {
  const stack = stackSuite(this, { cleanUp: removeFreshEmployees });

  const cancelOverHttp = (learner: Learner, turnId: string) => api(stack.baseUrl, "POST", `/api/v1/chat/turns/${turnId}/cancel`, { token: learner.token });
  const cancelOverSocket = (learner: Learner, turnId: string) => learner.socket.timeout(10_000).emitWithAck("cancel", { turnId });

  async function startTurn(learner: Learner, question: string): Promise<{ sessionId: string; turnId: string }> {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: question } });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    const ack = await join(learner.socket, { sessionId: posted.body.session_id });
    expect(ack).to.include({ ok: true });
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
  }

  const ofTurn = (learner: Learner, turnId: string): ReceivedEvent[] => learner.events.filter((e) => e.payload?.turnId === turnId);
  const tokensOf = (events: ReceivedEvent[]): string =>
    events
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content)
      .join("");

  async function storedAnswer(turnId: string): Promise<{ status: string; content: string; metadata: Record<string, any> } | undefined> {
    return stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
  }

  async function cancelMidStream(
    cancel: (learner: Learner, turnId: string) => Promise<unknown>,
    { opening = "", question = `What does the returns policy say? ${randomUUID()}` } = {},
  ): Promise<ReceivedEvent[]> {
    const learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    stack.llm.setResponder(scriptedResponder({ generation: () => `${opening}${LONG_ANSWER}` }));
    stack.llm.setTokenDelay(TOKEN_DELAY_MS);
    const { turnId } = await startTurn(learner, question);
    await waitFor(() => ofTurn(learner, turnId).filter((e) => e.event === "token").length >= 5, 20_000, "a few tokens");

    const cancelledAt = performance.now();
    await cancel(learner, turnId);
    const events = await waitForTurnEnd(learner.events, turnId, 10_000);
    const endedMs = performance.now() - cancelledAt;
    const done = events.find((e) => e.event === "done")!;
    expect(done.payload.cancelled).to.equal(true);
    expect(endedMs).to.be.below(3_000, "the stream was aborted, not run to the end (~30 s at this token delay)");

    // Nothing after `done`: no token, no post-processing, no summary refresh.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const all = ofTurn(learner, turnId);
    expect(all.at(-1)!.event).to.equal("done");
    expect(all.filter((e) => e.event === "done")).to.have.length(1);
    expect(all.map((e) => e.event)).to.not.include.members(["citations", "suggestions"]);
    expect(all.some((e) => e.event === "stage" && e.payload.stage === "postprocess")).to.equal(false);

    const shown = tokensOf(all);
    console.log(`      cancel → done in ${Math.round(endedMs)} ms; ${shown.length} of ${LONG_ANSWER.length} characters had streamed`);
    expect(shown.length).to.be.greaterThan(0);
    expect(shown.length).to.be.below(LONG_ANSWER.length / 2, "the model stopped early");
    const stored = await storedAnswer(turnId);
    expect(stored).to.include({ status: "cancelled", content: shown });
    expect(stored!.metadata.cancelled_during).to.equal("generate");
    expect(done.payload.messageId).to.be.a("string");
    expect(generationRequestsFor(stack, question)).to.have.length(1, "not retried");
    // The aborted stream is charged for what the model read and streamed: its prompt and the tokens received so far.
    const usage = await stack.server.deps.db("llm_usage_log").where({ user_id: learner.userId, use_case: "generation" });
    expect(usage).to.have.length(1);
    expect(usage[0].prompt_tokens, "the prompt, estimated with the tokenizer").to.be.greaterThan(100);
    expect(usage[0].completion_tokens, "the tokens streamed before the cancel").to.be.greaterThan(0);
    expect(usage[0].completion_tokens).to.be.below(countTokens(LONG_ANSWER), "not the whole answer");

    // The history shows the partial answer; a second cancel is a no-op 409.
    const again = await cancelOverHttp(learner, turnId);
    expect(again.status).to.equal(409);
    expect(again.body.error).to.include({ code: "TURN_ALREADY_FINISHED" });
    return all;
  }

  it("POST /turns/:id/cancel mid-stream: stream stopped, partial stored as cancelled, done says so, nothing after", async () => {
    await cancelMidStream(async (learner, turnId) => {
      const response = await cancelOverHttp(learner, turnId);
      expect(response.status, JSON.stringify(response.body)).to.equal(202);
      expect(response.body).to.deep.equal({ turn_id: turnId, status: "cancelling" });
    });
  });

  it("the socket `cancel` event does the same, with an ack", async () => {
    await cancelMidStream(async (learner, turnId) => {
      const ack = await cancelOverSocket(learner, turnId);
      expect(ack).to.deep.equal({ ok: true, turnId });
    });
  });

  it("cancelled after the model stepped down: the partial answer is stored on the general rung, as it was shown", async () => {
    // A question the returns manual answers (a random id in it would be a term no passage covers): the turn is grounded, and may step down.
    const events = await cancelMidStream(
      async (learner, turnId) => {
        expect((await cancelOverHttp(learner, turnId)).status).to.equal(202);
      },
      { opening: `${STEP_DOWN_MARKER} `, question: "How many days do customers have to return an item for a full refund?" },
    );
    expect(events.map((e) => e.event)).to.include("grounding_update");
    const turnId = events[0]!.payload.turnId as string;
    const stored = await storedAnswer(turnId);
    expect(stored!.metadata).to.deep.include({ rung: "general", retrieval_source: "none", sources: [] });
    expect(stored!.content).to.not.include(STEP_DOWN_MARKER);
  });

  it("cancelled while the model classifies: the answer started meanwhile is aborted unseen, done cancelled with an empty answer", async () => {
    const learner = await freshEmployee(stack);
    const question = `Cancel me early ${randomUUID()}`;
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const classify = scriptedResponder({ label: "general" });
    // The classifier's answer waits until the test has cancelled.
    stack.llm.setResponder(async (request: ChatRequest) => {
      if (promptOf(request).includes(CLASSIFY_MARKER) && promptOf(request).includes(question)) await gate;
      return classify(request);
    });
    const { turnId } = await startTurn(learner, question);
    await waitFor(
      () => stack.llm.chatCalls().some((r) => promptOf(r).includes(CLASSIFY_MARKER) && promptOf(r).includes(question)),
      20_000,
      "the classifier call",
    );
    const response = await cancelOverHttp(learner, turnId);
    expect(response.status).to.equal(202);
    openGate();

    const events = await waitForTurnEnd(learner.events, turnId, 20_000);
    const done = events.find((e) => e.event === "done")!;
    expect(done.payload.cancelled).to.equal(true);
    expect(events.some((e) => e.event === "token" || e.event === "grounding")).to.equal(false);
    // At most the speculative answer (speculation.ts) was asked for (the cancel may stop it before it is sent), and nothing of it was shown.
    expect(generationRequestsFor(stack, question)).to.have.length.at.most(1);
    expect(await storedAnswer(turnId)).to.include({ status: "cancelled", content: "" });
  });

  it("a finished turn: 409 TURN_ALREADY_FINISHED over HTTP and the socket, and its answer stays complete", async () => {
    const learner = await freshEmployee(stack);
    const turn = await ask(stack, learner, "hello");
    expect(turn.done).to.not.equal(undefined);
    const response = await cancelOverHttp(learner, turn.turnId);
    expect(response.status).to.equal(409);
    expect(response.body.error.code).to.equal("TURN_ALREADY_FINISHED");
    const ack = await cancelOverSocket(learner, turn.turnId);
    expect(ack).to.deep.include({ ok: false });
    expect(ack.error.code).to.equal("TURN_ALREADY_FINISHED");
    expect(await storedAnswer(turn.turnId)).to.include({ status: "complete" });
  });

  it("someone else's turn, or no turn at all: 404 (and a malformed id 400); the owner's turn is untouched", async () => {
    const owner = await freshEmployee(stack);
    const other = await freshEmployee(stack);
    stack.llm.setTokenDelay(TOKEN_DELAY_MS);
    stack.llm.setResponder(scriptedResponder({ generation: () => "A short answer about returns, streamed slowly." }));
    const { turnId } = await startTurn(owner, `Someone else's turn ${randomUUID()}`);
    const refused = await cancelOverHttp(other, turnId);
    expect(refused.status).to.equal(404);
    expect(refused.body.error.code).to.equal("NOT_FOUND");
    const ack = await cancelOverSocket(other, turnId);
    expect(ack.error.code).to.equal("NOT_FOUND");
    expect((await cancelOverHttp(owner, randomUUID())).status).to.equal(404);
    expect((await cancelOverHttp(owner, "not-a-uuid")).status).to.equal(400);
    expect((await cancelOverSocket(owner, "not-a-uuid" as string)).error.code).to.equal("VALIDATION_ERROR");
    const events = await waitForTurnEnd(owner.events, turnId, 20_000);
    expect(events.find((e) => e.event === "done")!.payload.cancelled).to.equal(undefined);
    expect(await storedAnswer(turnId)).to.include({ status: "complete" });
  });
});
