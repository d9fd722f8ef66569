/**
 * A person's erasure survives its worker dying mid-way: a worker process (tiny batches, a short
 * lock) is SIGKILLed while it deletes the person's messages; the stack's own worker takes the
 * stalled job over, resumes at the recorded step and finishes, with exactly the totals an
 * uninterrupted run reports — nothing counted twice, nothing missed — and the same end state.
 */
import type { ChildProcess } from "node:child_process";
import { expect } from "chai";
import { findPersonErasure } from "../../../db/queries/person-erasure";
import { api, waitFor } from "../../harness/client";
import { spawnReadyWorker, stackWorker } from "../../reliability/helpers";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser } from "../admin/helpers";

const MESSAGES = 3_000;

describe("person-data: an erase worker killed mid-erasure", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000 });
  const children: ChildProcess[] = [];
  let orgId = "";
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  it("is finished by another worker, with the same totals and end state as an uninterrupted run", async () => {
    const db = stack.server.deps.db;
    orgId = await freshOrganisation(stack, "Crashy erasure");
    const admin = await freshUser(stack, { role: "admin", orgId });
    const person = await freshUser(stack, { orgId });
    const [session] = await db("chat_sessions").insert({ org_id: orgId, user_id: person.id, agent_type: "tutor", title: "Long one" }).returning("id");
    await db.raw(
      `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content) SELECT ?, ?, gen_random_uuid(), 'user', 'question ' || n FROM generate_series(1, ?) n`,
      [orgId, session.id, MESSAGES],
    );
    await db("llm_usage_log").insert(
      Array.from({ length: 20 }, () => ({ org_id: orgId, user_id: person.id, use_case: "tutor", model: "m", prompt_tokens: 10 })),
    );

    const inProcess = stackWorker(stack, "person-data");
    await inProcess.pause();
    let resumed = false;
    try {
      const child = await spawnReadyWorker(
        stack,
        { WORKER_QUEUES: "person-data:1", PERSON_ERASE_BATCH_ROWS: "5", WORKER_LOCK_DURATION_MS: "2000", LOG_LEVEL: "silent" },
        children,
      );
      const asked = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token, body: { confirm: person.email } });
      expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
      const erasureId = asked.body.erasure.id as string;
      await waitFor(
        async () => ((await findPersonErasure(db, orgId, erasureId))?.counts["rows.chat_messages"] ?? 0) >= 100,
        30_000,
        "the rows step to be under way",
      );
      child.kill("SIGKILL");
      const atKill = (await findPersonErasure(db, orgId, erasureId))!;
      expect(atKill.status, "killed mid-way").to.equal("running");
      expect(atKill.step).to.equal("rows");
      expect(atKill.counts["rows.chat_messages"]).to.be.below(MESSAGES);

      inProcess.resume();
      resumed = true;
      const done = await waitFor(
        async () => {
          const record = await findPersonErasure(db, orgId, erasureId);
          return record && ["completed", "failed"].includes(record.status) ? record : undefined;
        },
        60_000,
        "the stalled erasure to be taken over and finished",
      );
      expect(done.status, done.error ?? "").to.equal("completed");
      expect(done.counts).to.include({ "rows.chat_messages": MESSAGES, "rows.chat_sessions": 1, "unlinked.llm_usage_log.user_id": 20 });
      expect(await db("chat_messages").where({ org_id: orgId }).first()).to.equal(undefined);
      expect(await db("chat_sessions").where({ user_id: person.id }).first()).to.equal(undefined);
      expect(await db("llm_usage_log").where({ org_id: orgId }).whereNull("user_id").count<{ n: string }[]>("* as n")).to.deep.equal([{ n: "20" }]);
      expect(await db("users").where({ id: person.id }).first()).to.include({ name: "Erased person", email: `erased-${erasureId}@invalid`, is_active: false });
      expect(await db("audit_log").where({ org_id: orgId, action: "person.erased" }).count<{ n: string }[]>("* as n")).to.deep.equal([{ n: "1" }]);
    } finally {
      if (!resumed) inProcess.resume();
    }
  });
});
