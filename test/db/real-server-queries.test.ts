/**
 * Queries whose behaviour PGlite could hide, checked on the real server: the HNSW session
 * settings are in force on every pooled connection (and an iterative scan fills k under a
 * tenant filter, test/db/queries/knowledge-search.test.ts), the lost-turn sweep's read is served by its
 * partial index, and two executors of the same admin action item, truly concurrent, apply it
 * once (the row lock in applyActionItem). Skipped on the PGlite lane.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { HNSW_EF_SEARCH, createDb } from "../../db/knex";
import { applyActionItem } from "../../commands/apply-action-item";
import { findAction, listActionItems } from "../../db/queries/admin-actions";
import { proposeAction } from "../../commands/action-run";
import { listUnansweredTurns } from "../../db/queries/unanswered-turns";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { testDatabaseEngine } from "../harness/infrastructure";
import { api } from "../harness/client";
import { stackSuite } from "../support/suite";
import { freshEmployee, removeFreshEmployees } from "../workers/tutor/helpers";

describe("queries on a real PostgreSQL server", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000, cleanUp: removeFreshEmployees });

  before(function () {
    if (testDatabaseEngine() !== "server") this.skip();
  });

  it("every pooled connection runs with iterative HNSW scans and ef_search set, concurrently", async () => {
    const db = stack.workers.deps.db;
    // More sessions at once than one would open: each new pooled connection gets the settings.
    const shown = await Promise.all(
      Array.from({ length: 6 }, () =>
        db.transaction(async (trx) => {
          await trx.raw("SELECT pg_sleep(0.1)");
          const { rows } = await trx.raw(
            "SELECT current_setting('hnsw.iterative_scan') AS scan, current_setting('hnsw.ef_search') AS ef, pg_backend_pid() AS pid",
          );
          return rows[0] as { scan: string; ef: string; pid: number };
        }),
      ),
    );
    expect(new Set(shown.map((row) => row.pid)).size, "several backends").to.be.greaterThan(1);
    for (const row of shown) expect(row).to.include({ scan: "relaxed_order", ef: String(HNSW_EF_SEARCH) });
  });

  it("the lost-turn sweep reads recent questions through its partial index, not a pass over every message", async () => {
    const learner = await freshEmployee(stack);
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "Where is the returns form?" } });
    expect(posted.status).to.equal(202);
    const db = stack.server.deps.db;
    // Old answered questions, far more than the recent ones: what a long-lived database holds.
    await db.raw(
      `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content, created_at)
       SELECT ?, ?, gen_random_uuid(), 'user', 'old question', now() - interval '30 days' - n * interval '1 second'
         FROM generate_series(1, 20000) AS n`,
      [DEMO_IDS.orgId, posted.body.session_id],
    );
    await db.raw("ANALYZE chat_messages");

    // One connection, so the statistics read back are this session's, flushed on demand.
    const single = createDb({ url: stack.config.database.DATABASE_URL!, poolMax: 1 });
    try {
      const scans = async (): Promise<number> => {
        await single.raw("SELECT pg_stat_force_next_flush()");
        const { rows } = await single.raw("SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'chat_messages_questions_created_at'");
        return Number(rows[0].idx_scan);
      };
      const before = await scans();
      const unanswered = await listUnansweredTurns(single, { olderThanMs: 0, lookbackMs: 24 * 3600_000, limit: 100 });
      const dayAgo = Date.now() - 24 * 3600_000;
      expect(
        unanswered.every((turn) => new Date(turn.created_at).getTime() > dayAgo),
        "only the last day's questions",
      ).to.equal(true);
      expect(await scans(), "the partial index was scanned").to.be.greaterThan(before);
    } finally {
      await single.destroy();
      await db("chat_messages").where({ session_id: posted.body.session_id, content: "old question" }).delete();
    }
  });

  it("two executors of the same action item at the same moment apply it once: one waits on the row lock, then sees it done", async () => {
    const db = stack.workers.deps.db;
    const learner = await freshEmployee(stack);
    const admin = await db("users").where({ org_id: DEMO_IDS.orgId, role: "admin" }).first("id");
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "Hello" } });
    const course = await db("courses").where({ org_id: DEMO_IDS.orgId }).whereNot({ status: "archived" }).first("id");
    const created = await proposeAction(
      { db },
      {
        orgId: DEMO_IDS.orgId,
        userId: admin.id,
        sessionId: posted.body.session_id,
        turnId: randomUUID(),
        tool: "assign_course",
        args: {},
        preview: "Assign a course to one learner",
        estimate: { items: 1, writes: 1, seconds: 1 },
        expiresAt: new Date(Date.now() + 3600_000),
        items: [{ target: { user_id: learner.userId, course_id: course.id, deadline: "2031-01-31" }, label: "Test Learner", before: null, after: null }],
      },
    );
    await db("admin_actions").where({ id: created.id }).update({ status: "running", confirmed_by: admin.id, confirmed_at: db.fn.now() });
    const action = (await findAction(db, DEMO_IDS.orgId, created.id))!;
    const [item] = await listActionItems(db, DEMO_IDS.orgId, action.id);

    // Hold the item's lock so both executors are inside their transactions, waiting, at once.
    const holder = await db.transaction();
    await holder("admin_action_items").where({ id: item!.id }).forUpdate().first("id");
    const both = Promise.all([applyActionItem(db, action, item!.id), applyActionItem(db, action, item!.id)]);
    const waiting = async () => {
      const { rows } = await db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%admin_action_items%'");
      return rows[0].n as number;
    };
    for (let i = 0; i < 100 && (await waiting()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await waiting(), "both executors wait on the item's row lock").to.equal(2);
    await holder.rollback();

    expect((await both).sort()).to.deep.equal(["already", "applied"]);
    const enrollments = await db("enrollments").where({ org_id: DEMO_IDS.orgId, user_id: learner.userId, course_id: course.id });
    expect(enrollments).to.have.length(1);
    expect(await db("audit_log").where({ action_item_id: item!.id })).to.have.length(1);
  });
});
