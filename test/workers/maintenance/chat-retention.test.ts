/**
 * The `chat-retention` sweep on the real stack, with two organisations: A keeps chats 30 days, B
 * never set a retention. A's session idle for 40 days goes with its messages, feedback, question
 * vectors and Redis turn keys, its usage rows stay but no longer name its turn; A's recent
 * session and B's old one stay. The content-gap report never shows a question older than the
 * retention, before the sweep as after it. Batches are bounded, and a sweep stopped after a batch
 * goes on at the next run with exact totals.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { latestTurnKey } from "../../../queues/turn-keys";
import { ownedKey } from "../../../queues/slots";
import { deleteExpiredSessions, expiredSessions } from "../../../db/queries/chat-retention";
import { type RetentionSweep, sweepChatRetention } from "../../../workers/maintenance/chat-retention";
import { embedPendingQuestions } from "../../../workers/maintenance/question-vectors";
import { api, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { asLearner, freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { ask, type Turn } from "../tutor/helpers";

const OLD_QUESTION = "Where do I park my bicycle at the head office?";
const NEW_QUESTION = "Who signs off travel expenses above the limit?";
const DAY_MS = 86_400_000;

describe("chat retention sweep (maintenance: chat-retention)", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  const db = () => stack.server.deps.db;
  const redis = () => stack.server.deps.redis;
  const orgs: string[] = [];
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  const retention = async (admin: Person) => {
    const response = await api(stack.baseUrl, "GET", "/api/v1/admin/retention", { token: admin.token });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body;
  };
  const setRetention = async (admin: Person, days: number | null) => {
    const response = await api(stack.baseUrl, "PUT", "/api/v1/admin/retention", { token: admin.token, body: { chat_retention_days: days } });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
  };
  /** Makes a session look idle for `days`: its last activity, its messages, their vectors and usage rows. */
  const age = async (orgId: string, turn: Turn, days: number) => {
    const at = new Date(Date.now() - days * DAY_MS);
    await db()("chat_sessions").where({ org_id: orgId, id: turn.sessionId }).update({ created_at: at, updated_at: at });
    await db()("chat_messages").where({ org_id: orgId, session_id: turn.sessionId }).update({ created_at: at });
    await db()("llm_usage_log").where({ org_id: orgId }).andWhereLike("call_key", `%${turn.turnId}%`).update({ created_at: at });
  };
  const countOf = async (table: string, where: Record<string, string>) =>
    Number((await db()(table).where(where).count<{ count: string }[]>("* as count"))[0]!.count);
  const messagesOf = (orgId: string, turn: Turn) => countOf("chat_messages", { org_id: orgId, session_id: turn.sessionId });
  /** The organisation's content-gap report from `since` (asked until ready), as its groups' examples. */
  const gapExamples = async (admin: Person, since: Date): Promise<string[]> => {
    await embedPendingQuestions(stack.workers.deps, 500);
    const body = await waitFor(
      async () => {
        const response = await api(stack.baseUrl, "GET", `/api/v1/admin/insights/content-gaps?since=${encodeURIComponent(since.toISOString())}`, {
          token: admin.token,
        });
        expect(response.status).to.be.oneOf([200, 202]);
        if (response.body.status === "ready") return response.body;
        // Paced: the report is limited to RATE_LIMIT_CONTENT_GAPS_PER_MINUTE per admin.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return undefined;
      },
      20_000,
      "the content-gap report",
    );
    return body.groups.flatMap((group: { examples: string[] }) => group.examples);
  };
  /** Sessions of `orgId` idle for 40 days, with a question and an answer each, written directly (no model call). */
  const oldSessions = async (orgId: string, userId: string, count: number): Promise<string[]> => {
    const at = new Date(Date.now() - 40 * DAY_MS);
    const rows = await db()("chat_sessions")
      .insert(
        Array.from({ length: count }, (_, i) => ({ org_id: orgId, user_id: userId, agent_type: "tutor", title: `Old ${i}`, created_at: at, updated_at: at })),
      )
      .returning("id");
    const ids = rows.map((row: { id: string }) => row.id);
    for (const id of ids) {
      const turnId = randomUUID();
      await db()("chat_messages").insert([
        { org_id: orgId, session_id: id, turn_id: turnId, role: "user", content: "old question", created_at: at },
        { org_id: orgId, session_id: id, turn_id: turnId, role: "assistant", content: "old answer", created_at: at },
      ]);
    }
    return ids;
  };

  before(async () => {
    orgA = await freshOrganisation(stack, "Retention A");
    orgB = await freshOrganisation(stack, "Retention B");
    orgs.push(orgA, orgB);
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), orgs);
  });

  it("deletes A's chats idle past 30 days with their feedback, vectors and turn keys; keeps A's recent chat and all of B's", async () => {
    const anaA = await freshUser(stack, { orgId: orgA });
    const benB = await freshUser(stack, { orgId: orgB });
    const oldA = await ask(stack, asLearner(anaA), OLD_QUESTION);
    const newA = await ask(stack, asLearner(anaA), NEW_QUESTION);
    const oldB = await ask(stack, asLearner(benB), OLD_QUESTION);
    const rated = await api(stack.baseUrl, "POST", `/api/v1/chat/messages/${oldA.answer!.id}/feedback`, { token: anaA.token, body: { rating: "down" } });
    expect(rated.status).to.equal(200);
    await embedPendingQuestions(stack.workers.deps, 500);
    await age(orgA, oldA, 40);
    await age(orgB, oldB, 40);
    const usageA = await countOf("llm_usage_log", { org_id: orgA });
    const linkedToOldA = await db()("llm_usage_log")
      .where({ org_id: orgA })
      .andWhereLike("call_key", `%${oldA.turnId}%`)
      .count<{ count: string }[]>("* as count");
    expect(Number(linkedToOldA[0]!.count), "the old turn's model calls are charged under its job").to.be.greaterThan(0);

    const cluster = redis().isCluster;
    const keysOf = (turn: Turn) => [latestTurnKey(cluster, turn.sessionId), ownedKey(cluster, turn.turnId, `turn:${turn.turnId}:log`)];
    expect(await redis().exists(...keysOf(oldA)), "the old turn left keys in Redis").to.be.greaterThan(0);
    const keysOfOldB = await redis().exists(...keysOf(oldB));

    // Over 90 days, B's report has the old question; A's stops at its retention before any sweep ran.
    const since = new Date(Date.now() - 90 * DAY_MS);
    expect(await gapExamples(adminB, since)).to.include(OLD_QUESTION);
    expect(await gapExamples(adminA, since)).to.include.members([OLD_QUESTION, NEW_QUESTION]);
    await setRetention(adminA, 30);
    const beforeSweep = await gapExamples(adminA, since);
    expect(beforeSweep).to.include(NEW_QUESTION);
    expect(beforeSweep).not.to.include(OLD_QUESTION);

    // The month the old turn's calls now fall in, and this one.
    const months = [new Date(Date.now() - 40 * DAY_MS), new Date()].map((at) => at.toISOString().slice(0, 7));
    const usageReport = async () =>
      Promise.all(months.map(async (month) => (await api(stack.baseUrl, "GET", `/api/v1/admin/usage?month=${month}`, { token: adminA.token })).body));
    const reportBefore = await usageReport();
    expect(reportBefore[0].totals.calls, "the old turn's model calls are in its month's report").to.be.greaterThan(0);

    await sweepChatRetention(stack.workers.deps);

    expect(await usageReport(), "the usage report is the same: billing rows are kept").to.deep.equal(reportBefore);
    expect(await countOf("chat_sessions", { org_id: orgA, id: oldA.sessionId })).to.equal(0);
    expect(await messagesOf(orgA, oldA)).to.equal(0);
    expect(await countOf("chat_feedback", { org_id: orgA, message_id: oldA.answer!.id })).to.equal(0);
    expect(await countOf("question_vectors", { org_id: orgA })).to.equal(1, "only the recent question's vector is left");
    expect(await redis().exists(...keysOf(oldA)), "the old turn's Redis keys").to.equal(0);
    expect(await messagesOf(orgA, newA)).to.equal(2);
    expect(await messagesOf(orgB, oldB)).to.equal(2, "B set no retention: its 40-day-old chat stays");
    expect(await redis().exists(...keysOf(oldB))).to.equal(keysOfOldB);

    expect(await countOf("llm_usage_log", { org_id: orgA })).to.equal(usageA, "usage rows are billing records: all kept");
    const stillLinked = await db()("llm_usage_log")
      .where({ org_id: orgA })
      .andWhereLike("call_key", `%${oldA.turnId}%`)
      .count<{ count: string }[]>("* as count");
    expect(Number(stillLinked[0]!.count), "no usage row names the deleted turn").to.equal(0);

    const record = await retention(adminA);
    expect(record.chat_retention_days).to.equal(30);
    expect(record.last_sweep).to.include({ sessions: 1, messages: 2 });
    expect(Date.parse(record.last_sweep.finished_at)).to.be.closeTo(Date.now(), 60_000);
    expect(record.sweep_in_progress).to.equal(null);
    expect((await retention(adminB)).last_sweep).to.equal(null);

    const afterSweep = await gapExamples(adminA, since);
    expect(afterSweep).to.include(NEW_QUESTION);
    expect(afterSweep).not.to.include(OLD_QUESTION);
  });

  it("deletes in bounded batches, and a sweep stopped after a batch goes on at the next run with exact totals", async () => {
    const orgC = await freshOrganisation(stack, "Retention C");
    orgs.push(orgC);
    const adminC = await freshUser(stack, { role: "admin", orgId: orgC });
    await oldSessions(orgC, adminC.id, 5);
    await setRetention(adminC, 30);

    // A run that does one batch of two, then stops (as a killed worker would after its transaction).
    const ofC = (sweep: RetentionSweep) => sweep.deleted.find((entry) => entry.orgId === orgC);
    const stopped = await sweepChatRetention(stack.workers.deps, { batchSessions: 2, maxBatches: 1 });
    expect(ofC(stopped)).to.deep.equal({ orgId: orgC, batches: 1, sessions: 2, messages: 4, finished: false });
    let record = await retention(adminC);
    expect(record.sweep_in_progress).to.include({ sessions: 2, messages: 4 });
    expect(record.last_sweep).to.equal(null);
    expect(await countOf("chat_sessions", { org_id: orgC })).to.equal(3);

    const resumed = await sweepChatRetention(stack.workers.deps, { batchSessions: 2 });
    expect(ofC(resumed), "three sessions left: two passes of two").to.deep.equal({ orgId: orgC, batches: 2, sessions: 3, messages: 6, finished: true });
    record = await retention(adminC);
    expect(record.last_sweep).to.include({ sessions: 5, messages: 10 });
    expect(record.sweep_in_progress).to.equal(null);
    expect(await countOf("chat_sessions", { org_id: orgC })).to.equal(0);

    // Nothing left: the next run still records that it ran, having deleted nothing.
    await sweepChatRetention(stack.workers.deps, { batchSessions: 2 });
    expect((await retention(adminC)).last_sweep).to.include({ sessions: 0, messages: 0 });
  });

  it("keeps a chat whose organisation cleared its retention, and closes the sweep it left open", async () => {
    const orgD = await freshOrganisation(stack, "Retention D");
    orgs.push(orgD);
    const adminD = await freshUser(stack, { role: "admin", orgId: orgD });
    await oldSessions(orgD, adminD.id, 3);
    await setRetention(adminD, 10);
    await sweepChatRetention(stack.workers.deps, { batchSessions: 1, maxBatches: 1 });
    expect((await retention(adminD)).sweep_in_progress).to.include({ sessions: 1 });
    await setRetention(adminD, null);
    await sweepChatRetention(stack.workers.deps);
    const record = await retention(adminD);
    expect(record).to.include({ chat_retention_days: null, sweep_in_progress: null });
    expect(record.last_sweep).to.include({ sessions: 1 });
    expect(await countOf("chat_sessions", { org_id: orgD })).to.equal(2);
  });

  it("keeps a session that came back to life between the batch's read and its delete", async () => {
    const orgE = await freshOrganisation(stack, "Retention E");
    orgs.push(orgE);
    const adminE = await freshUser(stack, { role: "admin", orgId: orgE });
    const [idle, revived] = await oldSessions(orgE, adminE.id, 2);
    const cutoff = new Date(Date.now() - 30 * DAY_MS);
    const batch = await expiredSessions(db(), orgE, cutoff, 10);
    expect([...batch.sessionIds].sort()).to.deep.equal([idle, revived].sort());
    await db()("chat_sessions").where({ id: revived }).update({ updated_at: new Date() });
    expect(await deleteExpiredSessions(db(), orgE, batch, cutoff)).to.deep.equal({ sessions: 1, messages: 2, usageRowsUnlinked: 0 });
    expect((await db()("chat_sessions").where({ org_id: orgE }).select("id")).map((row: { id: string }) => row.id)).to.deep.equal([revived]);
  });

  it("runs as the maintenance queue's chat-retention job, whose result names what it deleted", async () => {
    const orgF = await freshOrganisation(stack, "Retention F");
    orgs.push(orgF);
    const adminF = await freshUser(stack, { role: "admin", orgId: orgF });
    await oldSessions(orgF, adminF.id, 2);
    await setRetention(adminF, 7);
    const queue = stack.server.deps.producer.queue("maintenance");
    const jobId = await stack.server.deps.producer.enqueue("maintenance", { task: "chat-retention" });
    const job = await waitFor(
      async () => {
        const found = await queue.getJob(jobId);
        return found && (await found.isCompleted()) ? found : undefined;
      },
      20_000,
      "the chat-retention job",
    );
    const result = job.returnvalue as RetentionSweep;
    expect(result.deleted.find((entry) => entry.orgId === orgF)).to.deep.equal({ orgId: orgF, batches: 1, sessions: 2, messages: 4, finished: true });
    expect((await retention(adminF)).last_sweep).to.include({ sessions: 2, messages: 4 });
  });
});
