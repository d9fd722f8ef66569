/**
 * The JSONB columns code reads back are parsed with one schema each (db/queries/message-metadata.ts,
 * db/queries/json-columns.ts), never cast. Rows written by an older release, or with a field of the
 * wrong type, read as defaults: the history, a cited passage, a rating and the next turn of the
 * session all work on them, with no 500; well-formed rows read back exactly as written.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { createSession, findOwnedSession } from "../../../db/queries/chat-sessions";
import { findTurnMessage } from "../../../db/queries/chat-messages";
import { actionEstimate, actionSummary, chunkMetadata, documentMetadata, sessionContext, storedVector } from "../../../db/queries/json-columns";
import { readMetadata } from "../../../db/queries/message-metadata";
import { api } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { freshEmployee, removeFreshEmployees, type Learner } from "../../workers/tutor/helpers";

/** What a client gets: JSON drops the fields read as absent. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe("stored JSON: one schema per column, tolerant of older rows", function () {
  this.timeout(60_000);

  describe("the schemas", () => {
    it("read a well-formed answer's metadata as written, unknown keys kept", () => {
      const written = {
        intent: "in_course",
        rung: "chunks",
        retrieval_source: "semantic",
        sources: [{ index: 1, document: "Returns policy", section: "§ 2", page: 3, sourceType: "document_chunk", sourceId: randomUUID() }],
        tokens_used: 120,
        suggestions: ["¿Y los reembolsos?"],
        added_by_a_later_release: { any: "shape" },
      };
      expect(readMetadata(structuredClone(written))).to.deep.equal(written);
    });

    it("read a field of the wrong type as absent, a value that is no object as {}, and never throw", () => {
      const read = readMetadata({ tokens_used: "many", rung: "sideways", sources: "none", language: "es", retrieval_source: 7 });
      expect(asJson(read)).to.deep.equal({ language: "es" });
      expect(read.tokens_used ?? 0).to.equal(0);
      for (const value of [null, [], "text", 42, undefined]) expect(readMetadata(value)).to.deep.equal({});
      // A source that still says what it points at keeps it; its labels default.
      expect(readMetadata({ sources: [{ index: 2, sourceType: "lesson", sourceId: null }] }).sources).to.deep.equal([
        { index: 2, document: "", section: null, page: null, sourceType: "lesson", sourceId: null },
      ]);
    });

    it("read the other columns the same way", () => {
      expect(asJson(sessionContext.parse({ course_id: 5, lesson_id: null, pinned_by: "x" }))).to.deep.equal({ lesson_id: null, pinned_by: "x" });
      expect(documentMetadata.parse({ format: "pdf", timings: { extract_ms: 12 } })).to.deep.equal({ format: "pdf", timings: { extract_ms: 12 } });
      expect(asJson(documentMetadata.parse({ format: "exe", timings: "slow" }))).to.deep.equal({});
      expect(chunkMetadata.parse(null)).to.deep.equal({});
      expect(asJson(chunkMetadata.parse({ heading: "Refunds", page_start: "3" }))).to.deep.equal({ heading: "Refunds" });
      expect(actionEstimate.parse({})).to.equal(null);
      expect(actionEstimate.parse({ items: 2, writes: 2, seconds: 1 })).to.deep.equal({ items: 2, writes: 2, seconds: 1 });
      expect(asJson(actionSummary.parse({ failed_items: "none", reason: "withdrawn" }))).to.deep.equal({ reason: "withdrawn" });
      expect(storedVector.parse([0.1, "x"])).to.deep.equal([]);
    });
  });

  describe("rows an older release wrote, through the running product", () => {
    let stack: Stack;
    let learner: Learner;

    before(async function () {
      this.timeout(180_000);
      stack = await useStack();
      learner = await freshEmployee(stack);
    });
    after(() => removeFreshEmployees(stack));

    it("serves the history, a passage, a rating and the session's next turn without a 500", async () => {
      const db = stack.server.deps.db;
      const owner = { orgId: stack.demo.orgId, userId: learner.userId };
      const session = await createSession(db, owner, { agentType: "tutor", title: "Older rows", context: {} });
      await db("chat_sessions")
        .where({ id: session.id })
        .update({ context: JSON.stringify({ course_id: 42 }) });
      const [odd, bare] = [randomUUID(), randomUUID()];
      const row = (turnId: string, role: string, content: string, metadata: string) => ({
        org_id: owner.orgId,
        session_id: session.id,
        turn_id: turnId,
        role,
        content,
        metadata: db.raw("?::jsonb", [metadata]),
      });
      await db("chat_messages").insert([
        row(odd, "user", "How many days do I have to return an item?", "[]"),
        row(odd, "assistant", "Thirty days [1].", JSON.stringify({ tokens_used: "many", rung: 3, sources: [{ index: "1" }], citations: "[1]" })),
        row(bare, "user", "And refunds?", '"not an object"'),
        row(bare, "assistant", "Within a week.", "{}"),
      ]);
      expect(asJson((await findOwnedSession(db, owner, session.id))?.context)).to.deep.equal({});

      const history = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${session.id}/messages`, { token: learner.token });
      expect(history.status, JSON.stringify(history.body)).to.equal(200);
      const answer = (history.body.messages as Array<{ id: string; turn_id: string; role: string; metadata: object }>).find(
        (m) => m.turn_id === odd && m.role === "assistant",
      )!;
      expect(answer.metadata).to.deep.equal({});

      const passage = await api(stack.baseUrl, "GET", `/api/v1/chat/messages/${answer.id}/passage?index=1`, { token: learner.token });
      expect(passage.status).to.equal(404);
      expect(passage.body.error.code).to.be.a("string");
      const rated = await api(stack.baseUrl, "POST", `/api/v1/chat/messages/${answer.id}/feedback`, { token: learner.token, body: { rating: "up" } });
      expect(rated.status, JSON.stringify(rated.body)).to.equal(200);

      // The session's next turn reads those rows as its history and is answered, its metadata typed on the way back.
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: learner.token,
        body: { message: "Can I return it without a receipt?", session_id: session.id },
      });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
      const stored = await waitForAnswer(stack, owner.orgId, posted.body.turn_id as string);
      expect(stored.metadata.rung).to.be.oneOf(["chunks", "document", "general"]);
      expect(stored.metadata.tokens_used).to.be.a("number");
    });
  });
});

async function waitForAnswer(stack: Stack, orgId: string, turnId: string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const stored = await findTurnMessage(stack.server.deps.db, orgId, turnId, "assistant");
    if (stored) return stored;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`turn ${turnId} was not answered`);
}
