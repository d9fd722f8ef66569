/**
 * Review finding F12 on the real stack, with two organisations: a database error that ends an
 * erasure (forced here by a test-only trigger that refuses to anonymise one person, quoting their
 * email in its message, as Postgres quotes offending values) is stored and answered by the API as
 * a code and a sentence of ours: no SQL statement, no bound or quoted value. Knex is built with
 * compileSqlOnError: false, so even the raw error carries placeholders, not the values, and what
 * BullMQ keeps of the failed attempts names the SQLSTATE code only. Another
 * organisation's erasure, running meanwhile, completes.
 */
import { expect } from "chai";
import { api, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { freshOrganisation } from "../../server/routes/allowance/helpers";

const TRIGGER = "test_refuse_anonymising";

describe("person-data: a failed erasure stores a code and a sentence, never the database's text (F12)", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  before(async () => {
    orgA = await freshOrganisation(stack, "Erasure failure A");
    orgB = await freshOrganisation(stack, "Erasure failure B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await db().raw(`DROP TRIGGER IF EXISTS ${TRIGGER} ON users`);
    await db().raw(`DROP FUNCTION IF EXISTS ${TRIGGER}()`);
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("keeps SQL, the person's email and ids out of the stored and answered error; another organisation's erasure completes", async () => {
    const victim = await freshUser(stack, { orgId: orgA });
    const other = await freshUser(stack, { orgId: orgB });
    await db().raw(`CREATE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refusing to anonymise %', OLD.email; END $$`);
    await db().raw(`CREATE TRIGGER ${TRIGGER} BEFORE UPDATE ON users FOR EACH ROW
      WHEN (OLD.id = '${victim.id}'::uuid AND NEW.erased_at IS NOT NULL) EXECUTE FUNCTION ${TRIGGER}()`);

    // What the raw error looks like now: placeholders, not bound values (compileSqlOnError: false).
    const raw = await db()("users")
      .where({ id: victim.id })
      .update({ erased_at: db().fn.now(), name: "Bound Value Marker" })
      .catch((error: Error) => error);
    expect(String((raw as Error).message))
      .to.include("$1")
      .and.not.include("Bound Value Marker");

    const ask = (admin: Person, person: Person) =>
      api(stack.baseUrl, "POST", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token, body: { confirm: person.email } });
    const asked = await ask(adminA, victim);
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    expect((await ask(adminB, other)).status).to.equal(202);
    const read = (admin: Person, person: Person) => api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token });

    const failed = await waitFor(
      async () => {
        const answer = await read(adminA, victim);
        return answer.body?.erasure?.status === "failed" ? answer.body.erasure : undefined;
      },
      90_000,
      "the erasure to fail after its retries",
    );
    expect(failed.error_code).to.equal("DATABASE_ERROR");
    expect(failed.error).to.match(/database error/i);
    const stored = await db()("person_erasures").where({ user_id: victim.id }).first("error", "error_code");
    for (const text of [JSON.stringify(failed), JSON.stringify(stored)]) {
      expect(text).to.not.include(victim.email);
      expect(text).to.not.include(victim.id);
      expect(text).to.not.include(orgA);
      expect(text).to.not.match(/update|"users"|\$1|refusing/i);
    }

    // What BullMQ keeps of the failed attempts (14 days, in Bull Board): the SQLSTATE code, not the text.
    const jobs = await stack.server.deps.producer.queue("person-data").getJobs(["failed"], 0, -1);
    const job = jobs.find((candidate) => candidate?.data?.erasureId === failed.id);
    expect(job?.failedReason).to.equal("database error P0001; the details are in the worker log");
    const kept = JSON.stringify({ reason: job?.failedReason, stack: job?.stacktrace });
    expect(kept).to.not.include(victim.email);
    expect(kept).to.not.match(/update|"users"|\$1|refusing/i);

    const elsewhere = await waitFor(
      async () => {
        const answer = await read(adminB, other);
        return answer.body?.erasure?.status === "completed" ? answer.body.erasure : undefined;
      },
      30_000,
      "organisation B's erasure",
    );
    expect(elsewhere.error).to.equal(null);
    expect(elsewhere.error_code).to.equal(null);
  });
});
