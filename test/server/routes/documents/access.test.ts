/**
 * Setting who may read a document through the documents API: restrictions sent with the upload
 * (multipart fields) and changed later with PATCH /api/v1/documents/:id, shown in the API, and
 * applied to retrieval at once. Bad input is a 400 naming the field, never a 500.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { keywordSearch } from "../../../../db/queries/knowledge-search";
import { DEMO_IDS } from "../../../../db/seeds/demo-ids";
import { api, upload } from "../../../harness/client";
import { useStack, type Stack } from "../../../support/stack";
import { insertCourse, insertDocument, removeFixtures, type FixtureCourse, type FixtureDocument } from "../../../workers/tutor/access-fixtures";
import { freshEmployee, removeFreshEmployees, type Learner } from "../../../workers/tutor/helpers";

describe("documents API: access restrictions", function () {
  this.timeout(60_000);
  let stack: Stack;
  let admin: Learner;
  let sales: Learner;
  let document: FixtureDocument;
  let course: FixtureCourse;
  const uploaded: string[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    admin = await freshEmployee(stack, { role: "admin", department: "People" });
    sales = await freshEmployee(stack, { department: "Sales" });
    course = await insertCourse(stack, { title: "Pricing Rules", module: "Prices", summary: "Prices.", lessons: [{ title: "Prices", content: "Prices." }] });
    document = await insertDocument(stack, {
      title: "Margin Targets",
      chunked: true,
      sections: [{ heading: "Margins", body: "The WOMBAT-6 margin target for the spring season is thirty-two percent." }],
    });
  });

  after(async () => {
    for (const id of uploaded) await api(stack.baseUrl, "DELETE", `/api/v1/documents/${id}?force=true`, { token: admin.token });
    await removeFixtures(stack);
    await removeFreshEmployees(stack);
  });

  const patch = (body: unknown, token = admin.token, id = document.id) => api(stack.baseUrl, "PATCH", `/api/v1/documents/${id}`, { token, body });
  const salesFinds = async () => {
    const hits = await keywordSearch(stack.server.deps.db, { reader: { orgId: DEMO_IDS.orgId, userId: sales.userId }, words: ["WOMBAT", "margin"], limit: 10 });
    return hits.some((hit) => hit.document_id === document.id);
  };

  it("changes who may read a document with PATCH, shows it, and retrieval follows at once", async () => {
    expect(await salesFinds(), "open to the whole org at first").to.equal(true);

    const restricted = await patch({ restricted_departments: ["Finance", " Finance ", "Warehouse"] });
    expect(restricted.status, JSON.stringify(restricted.body)).to.equal(200);
    expect(restricted.body.access).to.deep.equal({ restricted_departments: ["Finance", "Warehouse"], restricted_course_id: null });
    expect(await salesFinds(), "Sales is not in the list").to.equal(false);

    const shown = await api(stack.baseUrl, "GET", `/api/v1/documents/${document.id}`, { token: admin.token });
    expect(shown.body.access.restricted_departments).to.deep.equal(["Finance", "Warehouse"]);
    const listed = await api(stack.baseUrl, "GET", "/api/v1/documents", { token: admin.token });
    expect(listed.body.documents.find((d: { id: string }) => d.id === document.id).access.restricted_departments).to.deep.equal(["Finance", "Warehouse"]);

    const both = await patch({ restricted_departments: ["Sales"], restricted_course_id: course.id });
    expect(both.body.access).to.deep.equal({ restricted_departments: ["Sales"], restricted_course_id: course.id });
    expect(await salesFinds(), "right department, but not enrolled in the course").to.equal(false);
    await stack.server.deps.db("enrollments").insert({ org_id: DEMO_IDS.orgId, user_id: sales.userId, course_id: course.id });
    expect(await salesFinds(), "both restrictions hold").to.equal(true);

    const opened = await patch({ restricted_departments: null, restricted_course_id: null });
    expect(opened.body.access).to.deep.equal({ restricted_departments: null, restricted_course_id: null });
  });

  it("answers 400 for bad restrictions, 404 for an unknown document, 403 for employees", async () => {
    const bad: Array<[unknown, string]> = [
      [{ restricted_departments: [] }, "body.restricted_departments"],
      [{ restricted_departments: "Sales" }, "body.restricted_departments"],
      [{ restricted_departments: [""] }, "body.restricted_departments.0"],
      [{ restricted_departments: [42] }, "body.restricted_departments.0"],
      [{ restricted_course_id: "not-a-uuid" }, "body.restricted_course_id"],
      [{ restricted_course_id: randomUUID() }, "body.restricted_course_id"],
      // An unknown field is named in the path (strict bodies, issue 21 point 7).
      [{ restricted_departments: null, owner: "me" }, "body.owner"],
      [{}, "body"],
    ];
    for (const [body, path] of bad) {
      const response = await patch(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body.error.code).to.equal("VALIDATION_ERROR");
      expect(
        response.body.error.fields.map((f: { path: string }) => f.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    expect((await patch({ restricted_departments: ["Sales"] }, admin.token, randomUUID())).status).to.equal(404);
    expect((await patch({ restricted_departments: ["Sales"] }, admin.token, "nope")).status).to.equal(400);
    const employee = await patch({ restricted_departments: null }, sales.token);
    expect(employee.status).to.equal(403);
    const unchanged = await stack.server.deps.db("documents").where({ id: document.id }).first("restricted_departments");
    expect(unchanged.restricted_departments).to.equal(null);
  });

  it("takes restrictions as multipart fields at upload", async () => {
    const bytes = Buffer.from(`# Bonus rules ${randomUUID()}\n\nBonuses are paid in March.\n`);
    const response = await upload(
      stack.baseUrl,
      admin.token,
      { name: "bonus.md", bytes, type: "text/markdown" },
      { restricted_departments: '["Finance","Sales"]', restricted_course_id: course.id },
    );
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    uploaded.push(response.body.document_id);
    const shown = await api(stack.baseUrl, "GET", `/api/v1/documents/${response.body.document_id}`, { token: admin.token });
    expect(shown.body.access).to.deep.equal({ restricted_departments: ["Finance", "Sales"], restricted_course_id: course.id });

    const again = await upload(stack.baseUrl, admin.token, { name: "bonus.md", bytes, type: "text/markdown" }, { restricted_departments: "Finance, People" });
    expect(again.status, "same bytes: the existing document, restricted as now asked").to.equal(200);
    const reshown = await api(stack.baseUrl, "GET", `/api/v1/documents/${response.body.document_id}`, { token: admin.token });
    expect(reshown.body.access.restricted_departments).to.deep.equal(["Finance", "People"]);

    const other = Buffer.from(`# Other ${randomUUID()}\n\nText.\n`);
    const unknownCourse = await upload(
      stack.baseUrl,
      admin.token,
      { name: "other.md", bytes: other, type: "text/markdown" },
      { restricted_course_id: randomUUID() },
    );
    expect(unknownCourse.status).to.equal(400);
    expect(unknownCourse.body.error.code).to.equal("VALIDATION_ERROR");
    const emptyList = await upload(stack.baseUrl, admin.token, { name: "other.md", bytes: other, type: "text/markdown" }, { restricted_departments: "[]" });
    expect(emptyList.status).to.equal(400);
    expect(await stack.server.deps.db("documents").where({ org_id: DEMO_IDS.orgId, title: "other" }).first()).to.equal(undefined);
  });
});
