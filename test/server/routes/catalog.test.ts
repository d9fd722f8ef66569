/**
 * The catalog and progress API on the real stack, with two organisations: single records (PUT,
 * DELETE) and the records endpoint are idempotent and keyed by the caller's ids, each record
 * applied whole or refused with a reason; a bulk import applies a file in any order, reports each
 * bad line, and a re-run changes nothing; another organisation's key can neither see nor touch
 * the catalog; a body past its limit is refused with nothing stored. Bulk imports are bounded
 * (security review F3, F12): the pending slot is taken before the body is read, a held import
 * counts in the storage quota, a NUL or a value the database refuses fails only its record, a
 * failed import's error holds no SQL, and imports are fair-queued between organisations.
 */
import { request as httpRequest } from "node:http";
import { expect } from "chai";
import { catalogImportJobId } from "../../../queues/job-ids";
import { catalogImportHandler } from "../../../workers/catalog/import.handler";
import { api, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { stackWorker } from "../../reliability/helpers";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";

describe("catalog API (/api/v1/integrations/catalog)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  let keyA: string;
  let keyB: string;
  let readOnlyKeyA: string;
  let learnerEmail: string;
  let learnerId: string;

  const put = (path: string, body: unknown, key = keyA) => api(stack.baseUrl, "PUT", `/api/v1/integrations/catalog/${path}`, { token: key, body });
  const del = (path: string, key = keyA) => api(stack.baseUrl, "DELETE", `/api/v1/integrations/catalog/${path}`, { token: key });
  const records = (list: unknown[], key = keyA) => api(stack.baseUrl, "POST", "/api/v1/integrations/catalog/records", { token: key, body: { records: list } });
  const newKey = async (admin: Person, scopes: string[]): Promise<string> => {
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token: admin.token, body: { name: "LMS", scopes } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.key;
  };
  const postImport = (body: string | Buffer, type = "application/x-ndjson", key = keyA) =>
    fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": type }, body });
  const importEnded = async (id: string, key = keyA) => {
    let last: { status: number; body: any } | undefined;
    await waitFor(
      async () => {
        last = await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${id}?limit=1000`, { token: key });
        return ["completed", "failed"].includes(last.body?.import?.status);
      },
      30_000,
      "import to end",
    );
    return last!.body;
  };

  before(async () => {
    orgA = await freshOrganisation(stack, "Catalog A");
    orgB = await freshOrganisation(stack, "Catalog B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    keyA = await newKey(adminA, ["catalog:write"]);
    keyB = await newKey(adminB, ["catalog:write"]);
    readOnlyKeyA = await newKey(adminA, ["people:read"]);
    learnerEmail = `learner-${orgA}@example.com`;
    [{ id: learnerId }] = await db()("users")
      .insert({ org_id: orgA, email: learnerEmail, name: "Lea Learner", role: "employee", external_id: "hr-7" })
      .returning("id");
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("PUT creates, repeats as unchanged, updates what changed; the lesson is live for the tutor's reads at once", async () => {
    const course = { title: "Forklift safety", language: "de", description: "Sicher fahren" };
    const created = await put("courses/lms-c1", course);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.deep.equal({ type: "course", external_id: "lms-c1", result: "created" });
    expect((await put("courses/lms-c1", course)).body.result).to.equal("unchanged");
    expect((await put("courses/lms-c1", { ...course, title: "Forklift safety 2" })).body.result).to.equal("updated");
    expect((await put("modules/lms-m1", { course: "lms-c1", title: "Before driving", position: 1 })).status).to.equal(201);
    const lesson = { module: "lms-m1", title: "Checks", content: "# Checks\n\nTyres, **forks**, horn.", position: 1 };
    expect((await put("lessons/lms-l1", lesson)).status).to.equal(201);
    expect((await put("lessons/lms-l1", lesson)).body.result).to.equal("unchanged");
    expect((await put("lessons/lms-l1", { ...lesson, content: "# Checks\n\nTyres, forks, horn, lights." })).body.result).to.equal("updated");
    const row = await db()("lessons as l")
      .join("courses as c", "c.id", "l.course_id")
      .where({ "l.org_id": orgA, "l.external_id": "lms-l1" })
      .first("l.content", "c.title", "c.language");
    expect(row).to.deep.equal({ content: "# Checks\n\nTyres, forks, horn, lights.", title: "Forklift safety 2", language: "de" });
    const exercise = {
      lesson: "lms-l1",
      prompt: "Which checks come first?",
      kind: "multiple_choice",
      answer: { correct: ["tyres"], options: ["tyres", "radio"] },
    };
    expect((await put("exercises/lms-e1", exercise)).status).to.equal(201);
    expect((await put("exercises/lms-e1", { ...exercise, answer: { options: ["tyres", "radio"], correct: ["tyres"] } })).body.result).to.equal("unchanged");
  });

  it("refuses bad input with a code and stores nothing: unknown reference, unknown field, bad language, wrong scope, bad id", async () => {
    const unknown = await put("modules/lms-m9", { course: "not-imported", title: "Orphan", position: 2 });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.code).to.equal("UNKNOWN_REFERENCE");
    expect(unknown.body.error.message).to.include("not-imported");
    const extra = await put("courses/lms-c2", { title: "X", language: "en", colour: "red" });
    expect(extra.status).to.equal(400);
    expect(extra.body.error.code).to.equal("VALIDATION_ERROR");
    expect((await put("courses/lms-c2", { title: "X", language: "english" })).body.error.code).to.equal("VALIDATION_ERROR");
    const scope = await put("courses/lms-c2", { title: "X", language: "en" }, readOnlyKeyA);
    expect(scope.status).to.equal(403);
    expect(scope.body.error.code).to.equal("INTEGRATION_SCOPE_MISSING");
    expect((await put("courses/%20padded", { title: "X", language: "en" })).status).to.equal(400);
    expect(await db()("modules").where({ org_id: orgA, external_id: "lms-m9" }).first()).to.equal(undefined);
    expect(await db()("courses").where({ org_id: orgA, external_id: "lms-c2" }).first()).to.equal(undefined);
  });

  it("another organisation's key neither sees nor touches this catalog; the same external id is its own", async () => {
    const refByB = await put("modules/b-m1", { course: "lms-c1", title: "Borrowed", position: 1 }, keyB);
    expect(refByB.body.error.code).to.equal("UNKNOWN_REFERENCE");
    expect((await del("courses/lms-c1", keyB)).body.result).to.equal("unchanged");
    expect((await put("courses/lms-c1", { title: "B's own course", language: "en" }, keyB)).status).to.equal(201);
    const titles = await db()("courses").where({ external_id: "lms-c1" }).whereIn("org_id", [orgA, orgB]).orderBy("title").pluck("title");
    expect(titles).to.deep.equal(["B's own course", "Forklift safety 2"]);
  });

  it("the records endpoint applies each record whole or refused, in order: people by email or SCIM id, pair-keyed records, swaps of module places", async () => {
    const answer = await records([
      { type: "skill_category", external_id: "cat-safety", name: "Safety" },
      { type: "skill", external_id: "sk-fork", name: "Forklift driving", category: "cat-safety" },
      { type: "module", external_id: "lms-m2", course: "lms-c1", title: "Driving", position: 2 },
      {
        type: "enrollment",
        person: { email: learnerEmail.toUpperCase() },
        course: "lms-c1",
        status: "in_progress",
        deadline: "2027-01-31T00:00:00Z",
        score: 0.8567,
      },
      { type: "skill_level", person: { external_id: "hr-7" }, skill: "sk-fork", level: 3 },
      { type: "exercise_attempt", external_id: "att-1", exercise: "lms-e1", person: { external_id: "hr-7" }, score: 0.5, passed: false },
      { type: "review_schedule", person: { email: learnerEmail }, exercise: "lms-e1", next_review_at: "2027-01-05T09:00:00Z", interval_days: 3, ease: 2.5 },
      { type: "enrollment", person: { email: "nobody@example.com" }, course: "lms-c1", status: "completed" },
      { type: "lesson", external_id: "x", module: "lms-m2", title: "No content field", position: 1 },
      { type: "badge", external_id: "b1" },
    ]);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.counts).to.deep.equal({ created: 7, updated: 0, unchanged: 0, deleted: 0, failed: 3 });
    expect(answer.body.results.slice(7).map((r: { error: { code: string } }) => r.error.code)).to.deep.equal([
      "UNKNOWN_REFERENCE",
      "INVALID_RECORD",
      "UNKNOWN_TYPE",
    ]);
    expect(answer.body.results[7].error.message).not.to.include("nobody@example.com");
    const enrolment = await db()("enrollments").where({ org_id: orgA, user_id: learnerId }).first("status", "score");
    expect(enrolment).to.deep.equal({ status: "in_progress", score: "0.857" });
    expect(await db()("user_skills").where({ user_id: learnerId }).pluck("level")).to.deep.equal([3]);

    // The same records again: nothing changes, and a score that rounds to the stored one is the same score.
    const again = await records([
      { type: "enrollment", person: { email: learnerEmail }, course: "lms-c1", status: "in_progress", deadline: "2027-01-31T01:00:00+01:00", score: 0.8567 },
      { type: "skill_level", person: { external_id: "hr-7" }, skill: "sk-fork", level: 3 },
    ]);
    expect(again.body.counts).to.include({ unchanged: 2, created: 0, updated: 0 });

    // A reordering sync may send its modules in any order: m1 takes place 2, m2 (there) moves to m1's place 1.
    const swap = await records([{ type: "module", external_id: "lms-m1", course: "lms-c1", title: "Before driving", position: 2 }]);
    expect(swap.body.counts.updated).to.equal(1);
    const places = await db()("modules").where({ org_id: orgA }).whereIn("external_id", ["lms-m1", "lms-m2"]).orderBy("external_id").pluck("position");
    expect(places).to.deep.equal([2, 1]);
    expect((await records([{ type: "module", external_id: "lms-m2", course: "lms-c1", title: "Driving", position: 1 }])).body.counts.unchanged).to.equal(1);

    // Deletes of pair-keyed records, and of what is not there.
    const removed = await records([
      { type: "skill_level", op: "delete", person: { external_id: "hr-7" }, skill: "sk-fork" },
      { type: "skill_level", op: "delete", person: { external_id: "hr-7" }, skill: "sk-fork" },
      { type: "review_schedule", op: "delete", person: { email: "ghost@example.com" }, exercise: "lms-e1" },
    ]);
    expect(removed.body.results.map((r: { result: string }) => r.result)).to.deep.equal(["deleted", "unchanged", "unchanged"]);
  });

  it("deleting a course takes its modules, lessons and enrolments; a course documents are restricted to is refused whole", async () => {
    await put("courses/tmp-c", { title: "Temporary", language: "en" });
    await put("modules/tmp-m", { course: "tmp-c", title: "M", position: 1 });
    await put("lessons/tmp-l", { module: "tmp-m", title: "L", content: "text", position: 1 });
    const gone = await del("courses/tmp-c");
    expect(gone.status).to.equal(200);
    expect(gone.body.result).to.equal("deleted");
    expect(await db()("lessons").where({ org_id: orgA, external_id: "tmp-l" }).first()).to.equal(undefined);
    expect((await del("courses/tmp-c")).body.result).to.equal("unchanged");

    const courseId = (await db()("courses").where({ org_id: orgA, external_id: "lms-c1" }).first("id")).id;
    const [doc] = await db()("documents")
      .insert({
        org_id: orgA,
        uploaded_by: adminA.id,
        title: "Restricted",
        filename: "r.txt",
        mime_type: "text/plain",
        size_bytes: 1,
        content_hash: `h-${orgA}`,
        status: "COMPLETED",
        restricted_course_id: courseId,
      })
      .returning("id");
    const refused = await del("courses/lms-c1");
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal("RECORD_CONFLICT");
    expect(await db()("modules").where({ course_id: courseId }).count("* as n").first()).to.deep.equal({ n: "2" });
    await db()("documents").where({ id: doc.id }).delete();
  });

  it("a bulk NDJSON import applies records in any order, reports each bad line, and a re-run changes nothing", async () => {
    const lines = [
      JSON.stringify({ type: "enrollment", person: { external_id: "hr-7" }, course: "imp-c1", status: "not_started" }),
      JSON.stringify({ type: "lesson", external_id: "imp-l1", module: "imp-m1", title: "Intro", content: "Hola", position: 1 }),
      "{ not json",
      JSON.stringify({ type: "module", external_id: "imp-m1", course: "imp-c1", title: "Start", position: 1 }),
      "",
      JSON.stringify({ type: "course", external_id: "imp-c1", title: "Atención al cliente", language: "es" }),
      JSON.stringify({ type: "enrollment", person: { external_id: "hr-7" }, course: "never-sent", status: "not_started" }),
      JSON.stringify({ type: "lesson", external_id: "imp-big", module: "imp-m1", title: "Huge", content: "x".repeat(10 * 1024 * 1024), position: 2 }),
      JSON.stringify({ type: "course", op: "delete", external_id: "lms-c1" }),
      JSON.stringify({ type: "course", external_id: "imp-c2", title: "Second", language: "xx-long" }),
    ];
    const posted = await postImport(`${lines.join("\r\n")}\n`);
    expect(posted.status).to.equal(202);
    const { import: received } = (await posted.json()) as { import: { id: string; status: string } };
    expect(received.status).to.equal("received");
    const first = await importEnded(received.id);
    expect(first.import).to.include({ status: "completed", total: 9, done: 9, changed: true });
    expect(first.import.counts).to.deep.equal({ created: 4, updated: 0, unchanged: 0, deleted: 1, failed: 4 });
    expect(first.problems.map((p: { line: number; code: string }) => [p.line, p.code])).to.deep.equal([
      [3, "INVALID_JSON"],
      [7, "UNKNOWN_REFERENCE"],
      [8, "RECORD_TOO_LARGE"],
      [10, "INVALID_RECORD"],
    ]);
    expect(
      await db()("enrollments as e").join("courses as c", "c.id", "e.course_id").where({ "c.external_id": "imp-c1", "e.user_id": learnerId }).first("e.status"),
    ).to.deep.equal({
      status: "not_started",
    });
    expect(await db()("courses").where({ org_id: orgA, external_id: "lms-c1" }).first()).to.equal(undefined);
    expect(await db()("catalog_import_lines").where({ import_id: received.id }).count("* as n").first()).to.deep.equal({ n: "0" });

    const rerun = await postImport(`${lines.join("\n")}`);
    const second = await importEnded(((await rerun.json()) as { import: { id: string } }).import.id);
    expect(second.import).to.include({ status: "completed", changed: false });
    expect(second.import.counts).to.deep.equal({ created: 0, updated: 0, unchanged: 5, deleted: 0, failed: 4 });

    // The admins of the organisation heard how it went; the other organisation's did not.
    await waitFor(
      () => adminA.events.some((e) => (e.event as string) === "catalog_import" && e.payload.importId === received.id && e.payload.status === "completed"),
      10_000,
      "admin event",
    );
    expect(adminB.events.some((e) => (e.event as string) === "catalog_import")).to.equal(false);
  });

  it("a JSON import, {records: [...]}, numbers records by their place; a body that is not JSON fails the import with the reason", async () => {
    const posted = await postImport(
      JSON.stringify({
        records: [
          { type: "skill_category", external_id: "cat-json", name: "From JSON" },
          { type: "skill", external_id: "sk-json", name: "S", category: "nope" },
        ],
      }),
      "application/json",
    );
    expect(posted.status).to.equal(202);
    const done = await importEnded(((await posted.json()) as { import: { id: string } }).import.id);
    expect(done.import.counts).to.include({ created: 1, failed: 1 });
    expect(done.problems).to.deep.equal([
      { line: 2, code: "UNKNOWN_REFERENCE", message: 'skill category "nope" is not in the catalog (import it first, or fix the reference)' },
    ]);

    const broken = await postImport("[{", "application/json");
    const failed = await importEnded(((await broken.json()) as { import: { id: string } }).import.id);
    expect(failed.import.status).to.equal("failed");
    expect(failed.import.error).to.match(/not valid JSON/);
  });

  it("refuses a 50 MB import (413 IMPORT_TOO_LARGE) and an unknown content type (415), storing nothing", async () => {
    const before = await db()("catalog_imports").where({ org_id: orgA }).count("* as n").first();
    const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
    const refused = await postImport(big).catch((error: Error) => error);
    if (refused instanceof Error) throw refused;
    expect(refused.status).to.equal(413);
    const body = (await refused.json()) as { error: { code: string; limit_bytes: number } };
    expect(body.error.code).to.equal("IMPORT_TOO_LARGE");
    expect(body.error.limit_bytes).to.equal(32 * 1024 * 1024);
    const csv = await postImport("a,b\n", "text/csv");
    expect(csv.status).to.equal(415);
    expect(await db()("catalog_imports").where({ org_id: orgA }).count("* as n").first()).to.deep.equal(before);
  });

  /** An import whose body the test sends in two steps: its first line now, the rest when `finish` is called. */
  function heldImport(key: string): { answer: Promise<{ status: number; body: any }>; answered: () => boolean; finish(): void; drop(): void } {
    const request = httpRequest(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson", "transfer-encoding": "chunked" },
    });
    let done = false;
    const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
      request.on("response", (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          done = true;
          resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : undefined });
        });
      });
      request.on("error", (error) => (done ? undefined : reject(error)));
    });
    request.write(`${JSON.stringify({ type: "skill_category", external_id: "cat-held", name: "Held" })}\n`);
    return {
      answer,
      answered: () => done,
      finish: () => request.end(`${" ".repeat(64 * 1024)}\n`),
      drop: () => request.destroy(),
    };
  }

  const pendingOf = async (orgIds: string[]) =>
    Number((await db()("catalog_imports").whereIn("org_id", orgIds).whereIn("status", ["queued", "running"]).count("* as n").first())!.n);

  it("10 parallel imports of one organisation: exactly 3 take a slot, 7 are refused 409 IMPORTS_PENDING before their body is read; another organisation is not held back", async () => {
    const posts = Array.from({ length: 10 }, () => heldImport(keyB));
    try {
      // The bodies are still open: a refusal that comes now did not wait for (or buffer) the body.
      await waitFor(() => posts.filter((p) => p.answered()).length === 7, 15_000, "7 refusals while every body is still being sent");
      const refused = await Promise.all(posts.filter((p) => p.answered()).map((p) => p.answer));
      for (const answer of refused) {
        expect(answer.status).to.equal(409);
        expect(answer.body.error).to.include({ code: "IMPORTS_PENDING", pending: 3, limit: 3 });
      }
      expect(await pendingOf([orgB])).to.equal(3);
      const other = await postImport(JSON.stringify({ type: "skill_category", external_id: "cat-a-free", name: "A is free" }));
      expect(other.status, "organisation A is not held back by B's slots").to.equal(202);
      const held = posts.filter((p) => !p.answered());
      expect(held).to.have.length(3);
      for (const p of held) p.finish();
      for (const answer of await Promise.all(held.map((p) => p.answer))) expect(answer.status).to.equal(202);
    } finally {
      for (const p of posts) if (!p.answered()) p.drop();
    }
    await waitFor(async () => (await pendingOf([orgA, orgB])) === 0, 30_000, "the imports to end");
  });

  it("an import counts against the organisation's storage quota while it is held: past it 409 STORAGE_QUOTA_EXCEEDED and nothing stored; another organisation is not affected", async () => {
    await db()("organizations")
      .where({ id: orgB })
      .update({ storage_quota_bytes: 100 * 1024 });
    const imports = stackWorker(stack, "catalog-import");
    const file = (id: string) => `${JSON.stringify({ type: "skill_category", external_id: id, name: "Quota" })}\n${" ".repeat(60 * 1024)}\n`;
    const storageOf = async (admin: Person) => (await api(stack.baseUrl, "GET", "/api/v1/documents", { token: admin.token })).body.storage;
    await imports.pause();
    try {
      expect((await postImport(file("cat-q1"), "application/x-ndjson", keyB)).status).to.equal(202);
      expect((await storageOf(adminB)).used_bytes).to.be.greaterThan(60 * 1024);
      const rowsBefore = await db()("catalog_imports").where({ org_id: orgB }).count("* as n").first();
      const refused = await postImport(file("cat-q2"), "application/x-ndjson", keyB);
      expect(refused.status).to.equal(409);
      const body = (await refused.json()) as { error: { code: string; quota_bytes: number } };
      expect(body.error).to.include({ code: "STORAGE_QUOTA_EXCEEDED", quota_bytes: 100 * 1024 });
      expect(await db()("catalog_imports").where({ org_id: orgB }).count("* as n").first()).to.deep.equal(rowsBefore);
      expect((await postImport(file("cat-qa"))).status, "A's import is not counted in B's quota").to.equal(202);
    } finally {
      imports.resume();
    }
    await waitFor(async () => (await pendingOf([orgA, orgB])) === 0, 30_000, "the imports to end");
    expect((await storageOf(adminB)).used_bytes, "an ended import holds nothing").to.equal(0);
    expect((await postImport(file("cat-q3"), "application/x-ndjson", keyB)).status).to.equal(202);
    await waitFor(async () => (await pendingOf([orgB])) === 0, 30_000, "the import to end");
    await db()("organizations").where({ id: orgB }).update({ storage_quota_bytes: null });
  });

  it("a NUL character or a value the database refuses fails only its own record; a failed import's error never holds SQL or values", async () => {
    await db()("users").insert({ org_id: orgB, email: `nul-${orgB}@example.com`, name: "Nul Person", role: "employee", external_id: "hr-b1" });
    const lines = [
      JSON.stringify({ type: "skill_category", external_id: "cat-b1", name: "Fine" }),
      '{"type":"skill_category","external_id":"cat-b2","name":"a\\u0000b"}',
      JSON.stringify({ type: "course", external_id: "course-b1", title: "B course", language: "en" }),
      JSON.stringify({ type: "enrollment", person: { external_id: "hr-b1" }, course: "course-b1", status: "completed", completed_at: "0000-01-01T00:00:00Z" }),
      JSON.stringify({ type: "skill_category", external_id: "cat-b3", name: "Also fine" }),
    ];
    const posted = await postImport(lines.join("\n"), "application/x-ndjson", keyB);
    expect(posted.status).to.equal(202);
    const alongside = await postImport(JSON.stringify({ type: "skill_category", external_id: "cat-a-nul", name: "A alongside" }));
    const done = await importEnded(((await posted.json()) as { import: { id: string } }).import.id, keyB);
    expect(done.import).to.include({ status: "completed", error: null });
    expect(done.import.counts).to.deep.include({ created: 3, failed: 2 });
    expect(done.problems.map((p: { line: number; code: string }) => [p.line, p.code])).to.deep.equal([
      [2, "INVALID_RECORD"],
      [4, "RECORD_NOT_STORED"],
    ]);
    expect(done.problems[0].message).to.include("NUL");
    expect(done.problems[1].message).not.to.match(/insert|enrollments|0000|hr-b1/i);
    const ofA = await importEnded(((await alongside.json()) as { import: { id: string } }).import.id);
    expect(ofA.import).to.include({ status: "completed" });
    expect(ofA.import.counts.created).to.equal(1);

    // An import the worker keeps failing on: what is stored is a fixed sentence and a code, not the error's text.
    const imports = stackWorker(stack, "catalog-import");
    await imports.pause();
    let failedId: string;
    try {
      const held = await postImport(JSON.stringify({ type: "skill_category", external_id: "cat-b4", name: "x" }), "application/x-ndjson", keyB);
      failedId = ((await held.json()) as { import: { id: string } }).import.id;
      const sqlError = Object.assign(new Error(`insert into "skill_categories" ("name") values ('secret-${orgB}') - boom`), { code: "XX000" });
      const deps = stack.workers.deps;
      await catalogImportHandler.onFailed!({ data: { orgId: orgB, importId: failedId }, deps, log: deps.log, job: undefined as never }, sqlError, {
        final: true,
      });
    } finally {
      imports.resume();
    }
    const failed = (await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${failedId}`, { token: keyB })).body.import;
    expect(failed).to.include({ status: "failed", error_code: "IMPORT_FAILED" });
    expect(failed.error).not.to.match(/insert|skill_categories|secret/);
  });

  it("imports are fair between organisations: one queued after another organisation's backlog goes ahead of it", async () => {
    const imports = stackWorker(stack, "catalog-import");
    await imports.pause();
    const priorities: Record<string, number[]> = { A: [], B: [] };
    try {
      const line = JSON.stringify({ type: "skill_category", external_id: "cat-fair", name: "Fair" });
      const post = async (key: string, who: "A" | "B") => {
        const posted = await postImport(line, "application/x-ndjson", key);
        expect(posted.status).to.equal(202);
        const { id } = ((await posted.json()) as { import: { id: string } }).import;
        const job = await stack.server.deps.producer.queue("catalog-import").getJob(catalogImportJobId(id));
        priorities[who]!.push(job!.priority);
      };
      for (let i = 0; i < 3; i++) await post(keyB, "B");
      await post(keyA, "A");
    } finally {
      imports.resume();
    }
    const [a] = priorities.A as [number];
    const [, b2, b3] = priorities.B as [number, number, number];
    expect(a, "A's import is fair-queued").to.be.greaterThan(0);
    expect(a, "A's import starts before B's second and third").to.be.lessThan(b2);
    expect(a).to.be.lessThan(b3);
    await waitFor(async () => (await pendingOf([orgA, orgB])) === 0, 30_000, "the imports to end");
  });

  it("each write leaves an integration_key.write_requested audit row naming the key; admins see imports of their own organisation only", async () => {
    const audits = await db()("audit_log").where({ org_id: orgA, action: "integration_key.write_requested" }).select("details");
    expect(audits.length).to.be.greaterThan(10);
    expect(audits.map((a: { details: { path: string } }) => a.details.path)).to.include("/api/v1/integrations/catalog/imports");
    const list = await api(stack.baseUrl, "GET", "/api/v1/admin/catalog-imports", { token: adminA.token });
    expect(list.status).to.equal(200);
    expect(list.body.imports.length).to.be.greaterThanOrEqual(4);
    const id = list.body.imports[0].id;
    expect((await api(stack.baseUrl, "GET", `/api/v1/admin/catalog-imports/${id}`, { token: adminA.token })).status).to.equal(200);
    expect((await api(stack.baseUrl, "GET", `/api/v1/admin/catalog-imports/${id}`, { token: adminB.token })).status).to.equal(404);
    expect((await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${id}`, { token: keyB })).status).to.equal(404);
    const ofB = (await api(stack.baseUrl, "GET", "/api/v1/admin/catalog-imports", { token: adminB.token })).body.imports.map((i: { id: string }) => i.id);
    expect(ofB.length).to.be.greaterThan(0);
    const ofA = list.body.imports.map((i: { id: string }) => i.id);
    for (const id of ofB) expect(ofA).not.to.include(id);
    const rowsOfB = await db()("catalog_imports").whereIn("id", ofB).pluck("org_id");
    expect(new Set(rowsOfB)).to.deep.equal(new Set([orgB]));
  });
});
