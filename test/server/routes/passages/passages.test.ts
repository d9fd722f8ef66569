/**
 * Citations that open their passage: the chunk the tutor was given, with its document, heading
 * and a link to the original, only for people who may read it now (the retrieval rule).
 */
import { expect } from "chai";
import { passageResponse } from "../../../../server/routes/passages/schema";
import { api, upload, waitFor } from "../../../harness/client";
import { makeMarkdown } from "../../../support/document-fixtures";
import { useStack, type Stack } from "../../../support/stack";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { ask } from "../../../workers/tutor/helpers";
import { asLearner as learner, dropOrganisation, freshOrganisation } from "../allowance/helpers";

describe("cited passages (GET /api/v1/chat/messages/:id/passage)", function () {
  this.timeout(90_000);
  let stack: Stack;
  let orgId: string;
  let admin: Person;
  let sales: Person;
  let colleague: Person;
  let documentId: string;
  let answerId: string;
  const bytes = makeMarkdown([
    { heading: "Company cars", body: "To book a company car for a client visit, fill in form F-12 at the fleet desk two days ahead." },
  ]);

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    orgId = await freshOrganisation(stack, "Passage org");
    admin = await freshUser(stack, { role: "admin", orgId });
    sales = await freshUser(stack, { orgId, department: "Sales" });
    colleague = await freshUser(stack, { orgId, department: "Sales" });
    const uploaded = await upload(stack.baseUrl, admin.token, { name: "fleet.md", bytes, type: "text/markdown" });
    documentId = uploaded.body.document_id;
    await waitFor(
      async () => (await api(stack.baseUrl, "GET", `/api/v1/documents/${documentId}`, { token: admin.token })).body.status === "COMPLETED",
      30_000,
      "indexing",
    );
    const turn = await ask(stack, learner(sales), "How do I book a company car for a client visit?");
    expect(turn.answer?.metadata.rung).to.equal("chunks");
    answerId = turn.answer!.id;
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisation(stack, orgId);
  });

  const passage = (person: Person, index: number | string, id = answerId) =>
    api(stack.baseUrl, "GET", `/api/v1/chat/messages/${id}/passage?index=${index}`, { token: person.token });

  it("shows the passage the tutor was given, with its document, heading and a link to the original", async () => {
    const opened = await passage(sales, 1);
    expect(opened.status).to.equal(200);
    expect(passageResponse.safeParse(opened.body).success, "matches the documented schema").to.equal(true);
    expect(opened.body).to.include({ index: 1, source_type: "document_chunk", document_id: documentId, truncated: false });
    expect(opened.body.text).to.include("form F-12");
    expect(opened.body.heading).to.include("Company cars");
    expect(opened.body.title).to.be.a("string").and.not.equal("");
    const original = await fetch(`${stack.baseUrl}${opened.body.original_url}`, { headers: { authorization: `Bearer ${sales.token}` } });
    expect(original.status).to.equal(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).to.equal(true);
    expect(original.headers.get("content-disposition")).to.include("fleet.md");
  });

  it("is 404 for someone else's answer, an index the answer does not have, and 400 for a malformed index", async () => {
    expect((await passage(colleague, 1)).status).to.equal(404);
    expect((await passage(sales, 42)).status).to.equal(404);
    const bad = await passage(sales, "first");
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal("VALIDATION_ERROR");
  });

  it("stops showing the passage and the original once the reader may no longer read the document", async () => {
    const restricted = await api(stack.baseUrl, "PATCH", `/api/v1/documents/${documentId}`, {
      token: admin.token,
      body: { restricted_departments: ["Finance"] },
    });
    expect(restricted.status).to.equal(200);
    const refused = await passage(sales, 1);
    expect(refused.status).to.equal(404);
    expect(refused.body.error.code).to.equal("NOT_FOUND");
    const original = await api(stack.baseUrl, "GET", `/api/v1/library/documents/${documentId}/original`, { token: sales.token });
    expect(original.status).to.equal(404);
    const byAdmin = await fetch(`${stack.baseUrl}/api/v1/library/documents/${documentId}/original`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(byAdmin.status).to.equal(200);
  });
});
