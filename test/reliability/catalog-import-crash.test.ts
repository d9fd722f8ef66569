/**
 * A bulk catalog import whose worker is SIGKILLed mid-way, on the default lock settings: another
 * worker takes the job over, carries on from the cursor, and the import ends with the same
 * counts, problems and rows as the same file imported without a crash in another organisation —
 * no record applied twice (no duplicate enrolment or lesson), none skipped.
 */
import type { ChildProcess } from "node:child_process";
import { expect } from "chai";
import { api, waitFor } from "../harness/client";
import { catalogPeople, realisticCatalog } from "../harness/catalog-fixture";
import { dropOrganisations } from "../support/organizations";
import { useStack, type Stack } from "../support/stack";
import { freshOrganisation } from "../server/routes/allowance/helpers";
import { cleanUp, freshUser } from "../workers/admin/helpers";
import { spawnReadyWorker, stackWorker } from "./helpers";

const SHAPE = { courses: 20, modulesPerCourse: 4, lessonsPerModule: 10, people: 400, enrolmentsPerPerson: 8, badLines: 9 };

describe("a catalog import whose worker is killed mid-way", function () {
  this.timeout(240_000);
  let stack: Stack;
  const children: ChildProcess[] = [];
  const orgs: string[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  after(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, orgs);
  });

  async function organisationWithKey(name: string, prefix: string): Promise<{ orgId: string; key: string }> {
    const orgId = await freshOrganisation(stack, name);
    orgs.push(orgId);
    const admin = await freshUser(stack, { role: "admin", orgId });
    const people = catalogPeople(prefix, SHAPE.people).map((p) => ({
      org_id: orgId,
      email: p.email,
      external_id: p.external_id,
      name: p.email,
      role: "employee",
    }));
    await stack.server.deps.db("users").insert(people);
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", {
      token: admin.token,
      body: { name: "LMS", scopes: ["catalog:write"] },
    });
    return { orgId, key: created.body.key };
  }

  async function postImport(key: string, prefix: string): Promise<string> {
    const { lines } = realisticCatalog(prefix, SHAPE);
    const response = await fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
    expect(response.status).to.equal(202);
    return ((await response.json()) as { import: { id: string } }).import.id;
  }

  const importRow = (id: string) => stack.server.deps.db("catalog_imports").where({ id }).first();

  async function finished(key: string, id: string) {
    await waitFor(async () => ["completed", "failed"].includes((await importRow(id))?.status), 180_000, "the import to end");
    return (await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${id}?limit=1000`, { token: key })).body;
  }

  /** What the organisation's catalog holds, in numbers that do not depend on its ids. */
  async function fingerprint(orgId: string): Promise<Record<string, unknown>> {
    const db = stack.server.deps.db;
    const result: Record<string, unknown> = {};
    for (const table of ["courses", "modules", "lessons", "exercises", "enrollments", "user_skills", "exercise_attempts", "skills", "skill_categories"]) {
      result[table] = Number((await db(table).where({ org_id: orgId }).count("* as n").first())!.n);
    }
    result.lessonChars = Number(
      (await db("lessons")
        .where({ org_id: orgId })
        .sum({ n: db.raw("length(content)") })
        .first())!.n,
    );
    result.completed = Number((await db("enrollments").where({ org_id: orgId, status: "completed" }).count("* as n").first())!.n);
    return result;
  }

  it("resumes from its cursor on another worker and ends as an uninterrupted import does", async () => {
    const crashed = await organisationWithKey("Import crash A", "crash-a");
    const calm = await organisationWithKey("Import crash B", "crash-b");
    const inProcess = stackWorker(stack, "catalog-import");
    await inProcess.pause();
    const env: Record<string, string | undefined> = { WORKER_QUEUES: "catalog-import:1", LOG_LEVEL: "silent" };
    for (const name of ["WORKER_LOCK_DURATION_MS", "WORKER_STALLED_INTERVAL_MS", "WORKER_MAX_STALLED_COUNT"]) env[name] = undefined;
    try {
      let worker = await spawnReadyWorker(stack, env, children);
      const id = await postImport(crashed.key, "crash-a");
      await waitFor(async () => ((await importRow(id))?.next_seq ?? 0) >= 750, 120_000, "the import's cursor to pass 750");
      worker.kill("SIGKILL");
      const killedAt = (await importRow(id)).next_seq as number;
      worker = await spawnReadyWorker(stack, env, children);
      const resumed = await finished(crashed.key, id);
      const calmId = await postImport(calm.key, "crash-b");
      const uninterrupted = await finished(calm.key, calmId);

      expect(killedAt).to.be.lessThan(resumed.import.total);
      expect(resumed.import.status).to.equal("completed");
      expect(resumed.import.counts).to.deep.equal(uninterrupted.import.counts);
      expect(resumed.import.counts.failed).to.equal(SHAPE.badLines);
      expect(resumed.problems).to.deep.equal(uninterrupted.problems);
      const expected = await fingerprint(calm.orgId);
      expect(expected).to.include({ lessons: 800, enrollments: SHAPE.people * SHAPE.enrolmentsPerPerson, modules: 80 });
      expect(await fingerprint(crashed.orgId)).to.deep.equal(expected);
      worker.kill("SIGKILL");
    } finally {
      inProcess.resume();
    }
  });
});
