/**
 * A session with 50,000 messages: history is served a page at a time (newest page first,
 * oldest first within a page, `next_before` to go back), each page fast, and a tutor turn in
 * that session reads only its latest turns and completes normally. Other list endpoints are
 * bounded too.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { createSession } from "../../../../db/queries/chat-sessions";
import { countTurnsBeforeTurn, listRecentMessagesBeforeTurn } from "../../../../db/queries/chat-messages";
import { api, waitFor } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { ask, freshEmployee, generationRequestsFor, promptOf, removeFreshEmployees, type Learner } from "../../../workers/tutor/helpers";

const MESSAGES = 50_000;
const TURNS = MESSAGES / 2;
const PAGE_BOUND_MS = 1_000;

/** `Question #00042.` — fixed width, so no marker is a prefix of another. */
const question = (n: number): string => `Question #${String(n).padStart(5, "0")}.`;

interface Page {
  messages: Array<{ id: string; turn_id: string; role: string; content: string }>;
  has_more: boolean;
  next_before: string | null;
}

describe("chat history at scale", function () {
  this.timeout(120_000);
  let stack: Stack;
  let learner: Learner;
  let sessionId: string;

  before(async function () {
    this.timeout(180_000);
    stack = await useStack();
    learner = await freshEmployee(stack);
    const db = stack.server.deps.db;
    const session = await createSession(
      db,
      { orgId: stack.demo.orgId, userId: learner.userId },
      { agentType: "tutor", title: "A very long conversation", context: {} },
    );
    sessionId = session.id;
    // One statement: turn n is a question and its answer, a millisecond apart, an hour ago.
    await db.raw(
      `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content, created_at)
       SELECT ?, ?, md5(?::text || ':' || (g / 2))::uuid,
              CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
              CASE WHEN g % 2 = 0 THEN 'Question #' || lpad((g / 2)::text, 5, '0') || '.' ELSE 'Answer #' || lpad((g / 2)::text, 5, '0') || '.' END,
              now() - interval '1 hour' + g * interval '1 millisecond'
       FROM generate_series(0, ?) AS g`,
      [stack.demo.orgId, sessionId, sessionId, MESSAGES - 1],
    );
  });

  after(() => removeFreshEmployees(stack));

  const page = async (query: string): Promise<{ status: number; body: Page & { error?: { code: string; message: string } }; ms: number }> => {
    const started = performance.now();
    const response = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages${query}`, { token: learner.token });
    return { status: response.status, body: response.body, ms: performance.now() - started };
  };

  it("serves the newest page by default, oldest first within it, with a cursor to the page before", async () => {
    const first = await page("");
    expect(first.status).to.equal(200);
    expect(first.body.messages).to.have.length(50);
    expect(first.body.messages[0]!.content).to.equal(question(TURNS - 25));
    expect(first.body.messages.at(-1)!.content).to.equal(`Answer #${TURNS - 1}.`);
    expect(first.body.has_more).to.equal(true);
    expect(first.body.next_before).to.equal(first.body.messages[0]!.id);
    expect(first.ms, "first page").to.be.lessThan(PAGE_BOUND_MS);

    const second = await page(`?before=${first.body.next_before}&limit=200`);
    expect(second.status).to.equal(200);
    expect(second.body.messages).to.have.length(200);
    expect(second.body.messages.at(-1)!.content).to.equal(`Answer #${TURNS - 26}.`, "the message right before the first page, nothing skipped");
    expect(second.body.messages[0]!.content).to.equal(question(TURNS - 125));
    expect(second.ms, "a page by cursor").to.be.lessThan(PAGE_BOUND_MS);
    console.log(`      50,000 messages: newest page ${Math.round(first.ms)} ms, next 200 by cursor ${Math.round(second.ms)} ms`);
  });

  it("pages back to the very first message, and each page stays fast deep in the history", async () => {
    const db = stack.server.deps.db;
    const early = await db("chat_messages")
      .where({ session_id: sessionId, content: question(3) })
      .first("id");
    const deep = await page(`?before=${early.id}&limit=200`);
    expect(deep.status).to.equal(200);
    expect(deep.body.messages.map((m) => m.content)).to.deep.equal([
      question(0),
      "Answer #00000.",
      question(1),
      "Answer #00001.",
      question(2),
      "Answer #00002.",
    ]);
    expect(deep.body).to.include({ has_more: false, next_before: null });
    expect(deep.ms, "a page at the start of the history").to.be.lessThan(PAGE_BOUND_MS);

    const middle = await db("chat_messages")
      .where({ session_id: sessionId, content: question(12_345) })
      .first("id");
    const mid = await page(`?before=${middle.id}&limit=2`);
    expect(mid.body.messages.map((m) => m.content)).to.deep.equal([question(12_344), "Answer #12344."]);
    expect(mid.body.next_before).to.equal(mid.body.messages[0]!.id);
    expect(mid.ms).to.be.lessThan(PAGE_BOUND_MS);
  });

  it("refuses a bad limit or a cursor that is not a message of this session with 400", async () => {
    for (const query of ["?limit=0", "?limit=201", "?limit=ten", `?before=${randomUUID()}`, "?before=not-a-uuid"]) {
      const refused = await page(query);
      expect(refused.status, query).to.equal(400);
      expect(refused.body.error!.code, query).to.equal("VALIDATION_ERROR");
    }
    // A real message of the same learner, in another session: a cursor from there is refused too.
    const db = stack.server.deps.db;
    const other = await createSession(
      db,
      { orgId: stack.demo.orgId, userId: learner.userId },
      { agentType: "tutor", title: "Another conversation", context: {} },
    );
    const [elsewhere] = await db("chat_messages")
      .insert({ org_id: stack.demo.orgId, session_id: other.id, turn_id: randomUUID(), role: "user", content: "Elsewhere." })
      .returning("id");
    const crossSession = await page(`?before=${elsewhere.id}`);
    expect(crossSession.status).to.equal(400);
    expect(crossSession.body.error!.code).to.equal("VALIDATION_ERROR");
    expect((await page(`?before=${(await db("chat_messages").where({ session_id: sessionId }).first("id")).id}`)).status, "a cursor of this session").to.equal(
      200,
    );
  });

  it("runs a tutor turn in that session on its latest turns only, and completes normally", async () => {
    const db = stack.server.deps.db;
    const started = performance.now();
    const turn = await ask(stack, learner, "What did we just talk about?", { session_id: sessionId });
    const turnMs = performance.now() - started;
    expect(turn.errors).to.deep.equal([]);
    expect(turn.done).to.not.equal(undefined);
    expect(turn.answer?.status).to.equal("complete");
    expect(turnMs, "a turn in a 50,000-message session").to.be.lessThan(30_000);

    const [generation] = generationRequestsFor(stack, "What did we just talk about?");
    const prompt = promptOf(generation!);
    expect(prompt)
      .to.include(question(TURNS - 1))
      .and.include(`Answer #${TURNS - 1}.`);
    expect(prompt).to.not.include(question(0));
    expect(prompt).to.not.include(question(TURNS - 100));

    // The worker's read is a bounded SQL query, not the whole session.
    const recent = await listRecentMessagesBeforeTurn(db, stack.demo.orgId, sessionId, turn.turnId, 80);
    expect(recent).to.have.length(80);
    expect(recent.at(-1)!.content).to.equal(`Answer #${TURNS - 1}.`);
    expect(await countTurnsBeforeTurn(db, stack.demo.orgId, sessionId, turn.turnId)).to.equal(TURNS);

    // The summary refresh this triggers reads a bounded window too, and covers the aged-out turns.
    const summarised = await waitFor(() => db("chat_sessions").where({ id: sessionId }).whereNotNull("summary").first(), 30_000, "a session summary");
    expect(summarised.summary_turn_count).to.equal(TURNS + 1 - 6);
    console.log(`      tutor turn in the 50,000-message session: ${Math.round(turnMs)} ms`);
  });

  it("bounds the sessions list to the 50 most recently active", async () => {
    const db = stack.server.deps.db;
    await db("chat_sessions").insert(
      Array.from({ length: 60 }, (_, i) => ({ org_id: stack.demo.orgId, user_id: learner.userId, agent_type: "tutor", title: `filler ${i}` })),
    );
    const sessions = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions", { token: learner.token });
    expect(sessions.status).to.equal(200);
    expect(sessions.body.sessions).to.have.length(50);
  });
});
