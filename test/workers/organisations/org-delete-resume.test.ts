/**
 * An organisation's deletion survives its worker dying mid-way: a worker process (tiny batches,
 * a short lock) is SIGKILLed while it removes the rows; the stack's own worker takes the stalled
 * job over, resumes at the recorded step and finishes, and the report's totals are exactly what
 * the organisation had — nothing counted twice, nothing missed.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, login, waitFor } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { dropOrganisations } from "../../support/organizations";
import { spawnReadyWorker, stackWorker } from "../../reliability/helpers";
import { findOrgDeletion, tablesWithOrgId } from "../../../db/queries/org-deletion";

const MESSAGES = 3_000;

describe("org-delete: a worker killed mid-deletion", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  const children: ChildProcess[] = [];
  let orgId = "";
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  it("is finished by another worker, with the same totals", async () => {
    const db = stack.server.deps.db;
    const operator = (await login(stack.baseUrl, "admin@example.com")).token;
    const suffix = randomUUID().slice(0, 8);
    const created = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", {
      token: operator,
      body: { name: `Crashy ${suffix}`, admin: { email: `c-${suffix}@crashy.example` } },
    });
    expect(created.status).to.equal(201);
    orgId = created.body.organisation.id;
    const [session] = await db("chat_sessions").insert({ org_id: orgId, user_id: created.body.admin.id, agent_type: "tutor" }).returning("id");
    await db.raw(
      `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content) SELECT ?, ?, gen_random_uuid(), 'user', 'question ' || n FROM generate_series(1, ?) n`,
      [orgId, session.id, MESSAGES],
    );

    const inProcess = stackWorker(stack, "org-delete");
    await inProcess.pause();
    let resumed = false;
    try {
      const child = await spawnReadyWorker(
        stack,
        { WORKER_QUEUES: "org-delete:1", ORG_DELETE_BATCH_ROWS: "5", WORKER_LOCK_DURATION_MS: "2000", LOG_LEVEL: "silent" },
        children,
      );
      const asked = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${orgId}?confirm=${created.body.organisation.slug}`, { token: operator });
      expect(asked.status).to.equal(202);
      const deletionId = asked.body.deletion.id as string;
      await waitFor(async () => ((await findOrgDeletion(db, deletionId))?.counts["rows.chat_messages"] ?? 0) >= 100, 20_000, "the rows step to be under way");
      child.kill("SIGKILL");
      const atKill = (await findOrgDeletion(db, deletionId))!;
      expect(atKill.status, "killed mid-way").to.equal("running");
      expect(atKill.step).to.equal("rows");
      expect(atKill.counts["rows.chat_messages"]).to.be.below(MESSAGES);

      inProcess.resume();
      resumed = true;
      const done = await waitFor(
        async () => {
          const record = await findOrgDeletion(db, deletionId);
          return record && ["completed", "failed"].includes(record.status) ? record : undefined;
        },
        40_000,
        "the stalled deletion to be taken over and finished",
      );
      expect(done.status, done.error ?? "").to.equal("completed");
      expect(done.counts).to.include({ "rows.chat_messages": MESSAGES, "rows.chat_sessions": 1, "rows.users": 1, "rows.organizations": 1 });
      for (const table of await tablesWithOrgId(db)) expect(await db(table).where({ org_id: orgId }).first(), table).to.equal(undefined);
    } finally {
      if (!resumed) inProcess.resume();
    }
  });
});
