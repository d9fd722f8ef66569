/**
 * A person's data export on the real stack, with two organisations: an employee asks for theirs
 * (`/api/v1/me/export`), the queue builds a zip (README.md, data.json, one Markdown transcript per
 * session), they download it until it expires; an admin exports one person of their organisation
 * as a separate copy. Someone else's export, the other kind's copy and another organisation's are
 * all 404; employees cannot use the admin routes. Also measures a 50-session export.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { oneExportResponse } from "../../../../server/routes/person-data/schema";
import { api, waitFor } from "../../../harness/client";
import { stackWorker } from "../../../reliability/helpers";
import { dropOrganisations } from "../../../support/organizations";
import { stackSuite } from "../../../support/suite";
import { unzip } from "../../../support/zip-entries";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { ask } from "../../../workers/tutor/helpers";
import { asLearner, freshOrganisation } from "../allowance/helpers";

async function download(
  baseUrl: string,
  path: string,
  token: string,
): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    disposition: response.headers.get("content-disposition"),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

describe("person data export (/api/v1/me/export, /api/v1/admin/people/:id/export)", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000 });
  const db = () => stack.server.deps.db;
  const question = `What does the ${randomUUID().slice(0, 6)} travel policy say about trains?`;
  // The two organisations, their people, and the two exports the tests pass on.
  const ids = { orgA: "", orgB: "", ownExportId: "", adminExportId: "" };
  let employee: Person;
  let colleague: Person;
  let admin: Person;
  let adminB: Person;

  const get = (path: string, token: string) => api(stack.baseUrl, "GET", path, { token });
  const post = (path: string, token: string) => api(stack.baseUrl, "POST", path, { token });
  const completed = (path: string, token: string) =>
    waitFor(
      async () => {
        const answer = await get(path, token);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        return answer.body.export?.status === "completed" ? answer.body.export : undefined;
      },
      60_000,
      `${path} to complete`,
    );

  before(async function () {
    this.timeout(120_000);
    ids.orgA = await freshOrganisation(stack, "Export A");
    ids.orgB = await freshOrganisation(stack, "Export B");
    employee = await freshUser(stack, { orgId: ids.orgA, name: "Olga Export" });
    colleague = await freshUser(stack, { orgId: ids.orgA });
    admin = await freshUser(stack, { role: "admin", orgId: ids.orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: ids.orgB });
    const turn = await ask(stack, asLearner(employee), question);
    await api(stack.baseUrl, "POST", `/api/v1/chat/messages/${turn.answer!.id}/feedback`, { token: employee.token, body: { rating: "up", comment: "clear" } });
    const [course] = await db()("courses").insert({ org_id: ids.orgA, title: "Rail travel basics", language: "en" }).returning("id");
    await db()("enrollments").insert({ org_id: ids.orgA, user_id: employee.id, course_id: course.id, status: "completed", score: 0.9 });
    const [skill] = await db()("skills").insert({ org_id: ids.orgA, name: "Booking" }).returning("id");
    await db()("user_skills").insert({ org_id: ids.orgA, user_id: employee.id, skill_id: skill.id, level: 4 });
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [ids.orgA, ids.orgB]);
  });

  it("builds the employee's own export once however often they ask, and serves a zip of JSON and transcripts", async () => {
    expect((await get("/api/v1/me/export", employee.token)).body).to.deep.equal({ export: null });
    const worker = stackWorker(stack, "person-data");
    await worker.pause();
    let first;
    let second;
    try {
      first = await post("/api/v1/me/export", employee.token);
      second = await post("/api/v1/me/export", employee.token);
    } finally {
      worker.resume();
    }
    expect(first.status).to.equal(202);
    expect(oneExportResponse.safeParse(first.body).success, JSON.stringify(first.body)).to.equal(true);
    expect(first.body.export).to.include({ status: "queued", requested_via: "self", download_url: null });
    expect(second.body.export.id, "asking again answers the export under way").to.equal(first.body.export.id);
    ids.ownExportId = first.body.export.id;

    const ready = await completed(`/api/v1/me/exports/${ids.ownExportId}`, employee.token);
    expect(ready.download_url).to.equal(`/api/v1/me/exports/${ids.ownExportId}/download`);
    expect(ready.counts).to.include({ sessions: 1, messages: 2, feedback: 1, enrolments: 1, skills: 1 });
    expect(Date.parse(ready.expires_at) - Date.parse(ready.finished_at)).to.equal(24 * 3600_000);
    expect((await get("/api/v1/me/export", employee.token)).body.export.id).to.equal(ids.ownExportId);

    const file = await download(stack.baseUrl, ready.download_url, employee.token);
    expect(file.status).to.equal(200);
    expect(file.type).to.equal("application/zip");
    expect(file.disposition).to.match(/^attachment; filename="skillnet-data-[0-9a-f]{8}\.zip"$/);
    expect(file.bytes.length).to.equal(ready.size_bytes);
    const entries = unzip(file.bytes);
    const names = [...entries.keys()];
    expect(names.slice(0, 2)).to.deep.equal(["README.md", "data.json"]);
    expect(names[2]).to.match(/^sessions\/001-what-does-the-.*\.md$/);
    const data = JSON.parse(entries.get("data.json")!);
    expect(data.profile).to.include({ id: employee.id, email: employee.email, name: "Olga Export" });
    expect(data.sessions).to.have.length(1);
    expect(data.sessions[0].messages.map((m: { role: string }) => m.role)).to.deep.equal(["user", "assistant"]);
    expect(data.sessions[0].messages[0].content).to.equal(question);
    expect(data.sessions[0].messages[1].citations).to.be.an("array");
    expect(data.feedback[0]).to.include({ rating: "up", comment: "clear" });
    expect(data.enrolments[0]).to.include({ course: "Rail travel basics", status: "completed" });
    expect(data.skills[0]).to.include({ skill: "Booking", level: 4 });
    const transcript = entries.get(names[2]!)!;
    expect(transcript).to.include("## Olga Export — ").and.to.include(question).and.to.include("## Tutor — ");
  });

  it("keeps one person's export from everyone else: another employee, the admins' copy and another organisation", async () => {
    for (const path of [`/api/v1/me/exports/${ids.ownExportId}`, `/api/v1/me/exports/${ids.ownExportId}/download`]) {
      const refused = await get(path, colleague.token);
      expect(refused.status, path).to.equal(404);
      expect(refused.body.error.code).to.equal("NOT_FOUND");
    }
    // The person's own copy is not an admin's: an admin asks for their own.
    expect((await get(`/api/v1/admin/people/${employee.id}/exports/${ids.ownExportId}`, admin.token)).status).to.equal(404);
    expect((await get(`/api/v1/admin/people/${employee.id}/export`, admin.token)).body).to.deep.equal({ export: null });
    expect((await post(`/api/v1/admin/people/${colleague.id}/export`, employee.token)).status, "employees cannot use the admin routes").to.equal(403);

    const asked = await post(`/api/v1/admin/people/${employee.id}/export`, admin.token);
    expect(asked.status).to.equal(202);
    ids.adminExportId = asked.body.export.id;
    expect(ids.adminExportId).not.to.equal(ids.ownExportId);
    const ready = await completed(`/api/v1/admin/people/${employee.id}/exports/${ids.adminExportId}`, admin.token);
    expect(ready).to.include({ requested_via: "admin", download_url: `/api/v1/admin/people/${employee.id}/exports/${ids.adminExportId}/download` });
    const file = await download(stack.baseUrl, ready.download_url, admin.token);
    expect(file.status).to.equal(200);
    expect(JSON.parse(unzip(file.bytes).get("data.json")!).profile.id).to.equal(employee.id);
    expect((await get(`/api/v1/me/exports/${ids.adminExportId}`, employee.token)).status, "the admin's copy is not the employee's").to.equal(404);

    for (const path of [`/api/v1/admin/people/${employee.id}/export`, `/api/v1/admin/people/${employee.id}/exports/${ids.adminExportId}`]) {
      expect((await get(path, adminB.token)).status, path).to.equal(404);
    }
    expect((await download(stack.baseUrl, ready.download_url, adminB.token)).status).to.equal(404);
    const otherOrg = await post(`/api/v1/admin/people/${employee.id}/export`, adminB.token);
    expect(otherOrg.status).to.equal(404);
    expect(await db()("person_exports").where({ org_id: ids.orgB }).first()).to.equal(undefined);
    const bad = await get("/api/v1/me/exports/not-a-uuid", employee.token);
    expect(bad.status).to.equal(400);
  });

  it("audits every request and download of an export, the person's own included; refusals audit nothing", async () => {
    const trail = async (orgId: string) =>
      (
        await db()("audit_log")
          .where({ org_id: orgId })
          .whereIn("action", ["person.export_requested", "person.export_downloaded"])
          .orderBy("created_at")
          .select("actor_id", "action", "target_type", "target_id", "details")
      ).map((row: { details: unknown }) => ({ ...row, details: row.details }));
    const row = (actor: Person, action: string, exportId: string, via: string) => ({
      actor_id: actor.id,
      action,
      target_type: "person_export",
      target_id: exportId,
      details: { person_id: employee.id, via },
    });
    // The tests above: the employee's request (asked twice: one export, two requests) and download, the admin's request and download.
    expect(await trail(ids.orgA)).to.deep.equal([
      row(employee, "person.export_requested", ids.ownExportId, "self"),
      row(employee, "person.export_requested", ids.ownExportId, "self"),
      row(employee, "person.export_downloaded", ids.ownExportId, "self"),
      row(admin, "person.export_requested", ids.adminExportId, "admin"),
      row(admin, "person.export_downloaded", ids.adminExportId, "admin"),
    ]);
    const again = await download(stack.baseUrl, `/api/v1/admin/people/${employee.id}/exports/${ids.adminExportId}/download`, admin.token);
    expect(again.status).to.equal(200);
    expect((await trail(ids.orgA)).slice(-1)).to.deep.equal([row(admin, "person.export_downloaded", ids.adminExportId, "admin")]);
    // Refused downloads (another organisation's admin, a colleague) leave nothing, in either organisation.
    expect((await download(stack.baseUrl, `/api/v1/admin/people/${employee.id}/exports/${ids.adminExportId}/download`, adminB.token)).status).to.equal(404);
    expect((await download(stack.baseUrl, `/api/v1/me/exports/${ids.ownExportId}/download`, colleague.token)).status).to.equal(404);
    expect(await trail(ids.orgA)).to.have.length(6);
    expect(await trail(ids.orgB)).to.deep.equal([]);
  });

  it("stops serving an export once it expires, and the next export drops the expired archive", async () => {
    await db()("person_exports")
      .where({ id: ids.ownExportId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const status = await get(`/api/v1/me/exports/${ids.ownExportId}`, employee.token);
    expect(status.body.export).to.include({ status: "expired", download_url: null });
    expect((await download(stack.baseUrl, `/api/v1/me/exports/${ids.ownExportId}/download`, employee.token)).status).to.equal(404);
    const next = await post("/api/v1/me/export", employee.token);
    expect(next.body.export.id).not.to.equal(ids.ownExportId);
    await completed(`/api/v1/me/exports/${next.body.export.id}`, employee.token);
    expect((await db()("person_exports").where({ id: ids.ownExportId }).first("archive")).archive).to.equal(null);
  });

  it("exports a person with 50 sessions of 20 messages (figure for the report)", async () => {
    const heavy = await freshUser(stack, { orgId: ids.orgA });
    const sessions = await db()("chat_sessions")
      .insert(Array.from({ length: 50 }, (_, n) => ({ org_id: ids.orgA, user_id: heavy.id, agent_type: "tutor", title: `Question set ${n + 1}` })))
      .returning("id");
    const citation = { index: 1, document: "Travel policy", section: "§ 2 Trains", page: 3, sourceType: "document_chunk", sourceId: randomUUID() };
    for (const session of sessions)
      await db()("chat_messages").insert(
        Array.from({ length: 20 }, (_, n) => ({
          org_id: ids.orgA,
          session_id: session.id,
          turn_id: randomUUID(),
          role: n % 2 === 0 ? "user" : "assistant",
          content:
            n % 2 === 0 ? "How many days do I have to book a train for a client visit?" : "Book at least 7 days ahead through the travel desk [1]. ".repeat(6),
          metadata: n % 2 === 0 ? {} : { rung: "chunks", citations: [citation], sources: [citation] },
        })),
      );
    const started = performance.now();
    const asked = await post(`/api/v1/admin/people/${heavy.id}/export`, admin.token);
    const ready = await completed(`/api/v1/admin/people/${heavy.id}/exports/${asked.body.export.id}`, admin.token);
    const elapsedMs = Math.round(performance.now() - started);
    expect(ready.counts).to.include({ sessions: 50, messages: 1000 });
    const file = await download(stack.baseUrl, ready.download_url, admin.token);
    const entries = unzip(file.bytes);
    expect([...entries.keys()].filter((name) => name.startsWith("sessions/"))).to.have.length(50);
    const json = Buffer.byteLength(entries.get("data.json")!);
    console.log(
      `      50 sessions / 1,000 messages: zip ${file.bytes.length} bytes (data.json ${json} bytes uncompressed), request to completed ${elapsedMs} ms`,
    );
  });
});
