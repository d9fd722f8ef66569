/**
 * The per-organisation storage quota over HTTP: the listing reports usage against the quota, an
 * upload past it answers 409 STORAGE_QUOTA_EXCEEDED with the figures and stores nothing, and
 * concurrent uploads cannot both take the last free bytes. Another organisation is unaffected.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, login, upload } from "../../../harness/client";
import { stackSuite } from "../../../support/suite";
import { dropOrganisations } from "../../../support/organizations";

describe("documents: the organisation's storage quota", function () {
  const stack = stackSuite(this);
  let orgId: string;
  let token: string;
  const FILE_BYTES = 1000;
  const QUOTA = 3 * FILE_BYTES + 500;

  before(async () => {
    const db = stack.server.deps.db;
    const suffix = randomUUID().slice(0, 8);
    [{ id: orgId }] = await db("organizations")
      .insert({ name: "Quota Ltd", slug: `quota-${suffix}`, storage_quota_bytes: QUOTA })
      .returning("id");
    const email = `quota-admin-${suffix}@example.com`;
    await db("users").insert({ org_id: orgId, email, name: "Quota Admin", role: "admin", department: "Ops", locale: "en" });
    token = (await login(stack.baseUrl, email)).token;
  });
  after(() => dropOrganisations(stack.server.deps.db, [orgId]));

  /** A plain-text file of exactly FILE_BYTES bytes, different every time. */
  const file = (n: number) => {
    const head = `Quota handbook ${n} ${randomUUID()}. Refunds take five days.\n`;
    return { name: `quota-${n}.txt`, bytes: Buffer.from(head + "x".repeat(FILE_BYTES - Buffer.byteLength(head))), type: "text/plain" };
  };
  const storage = async () => (await api(stack.baseUrl, "GET", "/api/v1/documents", { token })).body.storage;

  it("lets concurrent uploads take only the free bytes, refuses the rest with 409 and a clear message, and stores nothing of them", async () => {
    expect(await storage()).to.deep.equal({ used_bytes: 0, quota_bytes: QUOTA });

    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => upload(stack.baseUrl, token, file(n))));
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(accepted, JSON.stringify(answers.map((a) => a.status))).to.have.length(3);
    expect(refused).to.have.length(3);
    for (const answer of refused) {
      expect(answer.body.error).to.include({ code: "STORAGE_QUOTA_EXCEEDED", quota_bytes: QUOTA, file_bytes: FILE_BYTES });
      expect(answer.body.error.message).to.match(/storage is full: .* used, .* free, and this file needs/);
    }
    const stored = await stack.server.deps.db("documents").where({ org_id: orgId }).count<{ count: string }[]>("* as count");
    expect(Number(stored[0]!.count)).to.equal(3);
    const files = await stack.server.deps.db("document_files").where({ org_id: orgId }).count<{ count: string }[]>("* as count");
    expect(Number(files[0]!.count), "no refused file's bytes are kept").to.equal(3);
    expect(await storage()).to.deep.equal({ used_bytes: 3 * FILE_BYTES, quota_bytes: QUOTA });

    // Deleting a document frees its bytes for the next upload.
    const victim = accepted[0]!.body.document_id as string;
    expect((await api(stack.baseUrl, "DELETE", `/api/v1/documents/${victim}`, { token })).status).to.be.oneOf([200, 204]);
    expect((await upload(stack.baseUrl, token, file(99))).status).to.equal(202);
  });

  it("leaves other organisations on the default quota", async () => {
    const demoAdmin = await login(stack.baseUrl, "admin@example.com");
    const listing = await api(stack.baseUrl, "GET", "/api/v1/documents", { token: demoAdmin.token });
    expect(listing.body.storage.quota_bytes).to.equal(stack.config.organisations.ORG_STORAGE_QUOTA_BYTES);
    expect(listing.body.storage.used_bytes).to.be.a("number");
    const posted = await upload(stack.baseUrl, demoAdmin.token, file(7));
    expect(posted.status).to.equal(202);
    await api(stack.baseUrl, "DELETE", `/api/v1/documents/${posted.body.document_id}`, { token: demoAdmin.token });
  });
});
