/**
 * No internal text reaches users or logs. A database error is logged by class and SQLSTATE code
 * only (its message holds the statement, and Postgres quotes offending values in it), and a turn
 * that fails on one stores a code and a human sentence in its metadata, never the statement.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { serializeError } from "../../../../lib/logger";
import { failTurn } from "../../../../workers/turns/stage-failure";
import { databaseSuite } from "../../../support/database";

describe("internal error text stays internal", function () {
  const lane = databaseSuite(this, { timeoutMs: 60_000 });
  let orgId: string;

  before(async () => {
    orgId = (await lane.build.buildOrg()).id;
    await lane.build.buildPerson(orgId);
  });

  /** A real failed statement whose bound value is something private. */
  async function failedStatement(secret: string): Promise<Error> {
    const db = lane.db;
    const taken = await db("users").where({ org_id: orgId }).first("email");
    try {
      await db("users").insert({ org_id: orgId, email: taken.email, name: secret, role: "employee", locale: "en" });
    } catch (error) {
      return error as Error;
    }
    throw new Error("the duplicate insert did not fail");
  }

  it("logs a database error by class and SQLSTATE code: neither the statement nor the values Postgres quotes in its message", async () => {
    const secret = `private-${randomUUID()}`;
    let error: Error | undefined;
    try {
      // Postgres quotes the offending value in its message: invalid input syntax for type uuid: "private-…".
      await lane.db("users").where({ org_id: orgId, id: secret }).first();
    } catch (caught) {
      error = caught as Error;
    }
    expect(error?.message).to.include(secret, "the raw message does carry the value");
    const logged = JSON.stringify(serializeError(error));
    expect(logged).to.not.include(secret);
    expect(logged).to.not.include(orgId);
    expect(logged).to.not.match(/select|from "users"/i);
    expect(serializeError(error)).to.include({ code: "22P02", type: "DatabaseError" });
  });

  it("stores a failed turn with a code and a human message, not the SQL of the error that ended it", async () => {
    const db = lane.db;
    const [user] = await db("users")
      .insert({ org_id: orgId, email: `internal-${randomUUID().slice(0, 8)}@example.com`, name: "Int Admin", role: "admin", locale: "en" })
      .returning("id");
    try {
      const [session] = await db("chat_sessions").insert({ org_id: orgId, user_id: user.id, agent_type: "admin", title: "t" }).returning("id");
      const turnId = randomUUID();
      await db("chat_messages").insert({ org_id: orgId, session_id: session.id, turn_id: turnId, role: "user", content: "hi", metadata: {} });
      const error = await failedStatement(`Private ${randomUUID()}`);
      expect(await failTurn(lane.workerDeps(), { orgId: orgId, sessionId: session.id, turnId }, error, { agent: "admin" })).to.equal(true);
      const stored = await db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
      expect(stored.status).to.equal("failed");
      expect(stored.metadata).to.include({ error_code: "INTERNAL_ERROR", agent: "admin" });
      const text = JSON.stringify(stored.metadata);
      expect(text).to.not.match(/insert into|users_|duplicate key|\$1/i);
      expect(text).to.not.include(orgId);
      // An admin's turn is the assistant's, not the tutor's.
      expect(stored.metadata.error).to.equal("The assistant could not finish this answer.");
    } finally {
      await db("users").where({ id: user.id }).delete();
    }
  });

  it("words a failed turn in the language of its question (French here), still with a code and no SQL", async () => {
    const db = lane.db;
    const [user] = await db("users")
      .insert({ org_id: orgId, email: `internal-${randomUUID().slice(0, 8)}@example.com`, name: "Int Employé", role: "employee", locale: "en" })
      .returning("id");
    try {
      const [session] = await db("chat_sessions").insert({ org_id: orgId, user_id: user.id, agent_type: "tutor", title: "t" }).returning("id");
      const turnId = randomUUID();
      const question = "Combien de jours ai-je pour retourner un article défectueux au magasin ?";
      await db("chat_messages").insert({ org_id: orgId, session_id: session.id, turn_id: turnId, role: "user", content: question, metadata: {} });
      const error = await failedStatement(`Private ${randomUUID()}`);
      expect(await failTurn(lane.workerDeps(), { orgId: orgId, sessionId: session.id, turnId }, error)).to.equal(true);
      const stored = await db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
      expect(stored.metadata).to.include({ error_code: "INTERNAL_ERROR", error: "Le tuteur n'a pas pu terminer cette réponse." });
      expect(JSON.stringify(stored.metadata)).to.not.match(/insert into|duplicate key/i);
    } finally {
      await db("users").where({ id: user.id }).delete();
    }
  });
});
