/**
 * A person with a long history exported on the real stack (review finding F17, in part): the
 * archive is built while this process's event loop, the one a worker streams answers on, is
 * watched; it must never be blocked past the hostile-input bound. An export of another
 * organisation's person, asked for meanwhile, completes too.
 */
import { expect } from "chai";
import { api, waitFor } from "../../harness/client";
import { expectNoLongBlock } from "../../support/event-loop-block";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { freshOrganisation } from "../../server/routes/allowance/helpers";

const SESSIONS = 200;
const MESSAGES_PER_SESSION = 100;

describe("person-data: a long history exported without blocking the event loop", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  before(async () => {
    orgA = await freshOrganisation(stack, "Long export A");
    orgB = await freshOrganisation(stack, "Long export B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it(`builds the archive of ${SESSIONS} sessions × ${MESSAGES_PER_SESSION} messages with the loop never blocked past the bound; another organisation's export completes`, async () => {
    const heavy = await freshUser(stack, { orgId: orgA });
    const other = await freshUser(stack, { orgId: orgB });
    await db().raw(`INSERT INTO chat_sessions (org_id, user_id, agent_type, title) SELECT ?, ?, 'tutor', 'Question set ' || n FROM generate_series(1, ?) n`, [
      orgA,
      heavy.id,
      SESSIONS,
    ]);
    await db().raw(
      `INSERT INTO chat_messages (org_id, session_id, turn_id, role, content)
       SELECT s.org_id, s.id, gen_random_uuid(), CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END,
              'Book at least 7 days ahead through the travel desk, message ' || n || '. ' || repeat('The policy says so. ', 15)
       FROM chat_sessions s, generate_series(1, ?) n WHERE s.user_id = ?`,
      [MESSAGES_PER_SESSION, heavy.id],
    );
    const completed = (admin: Person, person: Person, exportId: string) =>
      waitFor(
        async () => {
          const answer = await api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/exports/${exportId}`, { token: admin.token });
          return answer.body?.export?.status === "completed" || answer.body?.export?.status === "failed" ? answer.body.export : undefined;
        },
        120_000,
        "the export",
      );
    const [ready, elsewhere] = await expectNoLongBlock(`an export of ${SESSIONS * MESSAGES_PER_SESSION} messages`, async () => {
      const asked = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${heavy.id}/export`, { token: adminA.token });
      const askedB = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${other.id}/export`, { token: adminB.token });
      return Promise.all([completed(adminA, heavy, asked.body.export.id), completed(adminB, other, askedB.body.export.id)]);
    });
    expect(ready.status, ready.error).to.equal("completed");
    expect(ready.counts).to.include({ sessions: SESSIONS, messages: SESSIONS * MESSAGES_PER_SESSION });
    expect(elsewhere.status).to.equal("completed");
    console.log(`      ${SESSIONS * MESSAGES_PER_SESSION} messages: archive ${ready.size_bytes} bytes`);
  });
});
