/**
 * Documents kept in step with their source (/api/v1/integrations/documents, documents:write) on
 * the real stack with two organisations: an unknown id is created, the same bytes change
 * nothing, new bytes are indexed while the old version stays searchable and then swapped in
 * (retrieval read over and over during the re-index finds exactly one version every time), a
 * failed new version leaves the old one live, duplicate bytes are refused, DELETE removes chunks
 * and file, and another organisation's key neither sees nor touches any of it.
 */
import { expect } from "chai";
import { keywordSearch } from "../../../db/queries/knowledge-search";
import { api, waitFor } from "../../harness/client";
import { upload } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { deleteSourced, listSourced, newIntegrationKey, putSourced } from "../../support/sourced-documents";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";

const policy = (marker: string, days: number): string =>
  `# Leave policy\n\nEvery employee receives ${days} days of paid leave each year. Reference ${marker}.\n\n## Requests\n\nAsk your manager two weeks ahead; ${marker} applies.\n`;

describe("sourced documents (/api/v1/integrations/documents)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;
  let keyA: { key: string; id: string };
  let keyB: { key: string; id: string };

  const documentOf = (orgId: string, externalId: string) =>
    db()("documents")
      .where({ org_id: orgId, external_id: externalId })
      .first("id", "status", "content_hash", "ingest_generation", "full_text", "error", "error_code", "chunk_count", "uploaded_by");
  const settled = (orgId: string, externalId: string, generation: number) =>
    waitFor(
      async () => {
        const row = await documentOf(orgId, externalId);
        return row && row.ingest_generation === generation && ["COMPLETED", "FAILED"].includes(row.status) ? row : undefined;
      },
      120_000,
      `${externalId} generation ${generation} to end`,
    );

  before(async () => {
    orgA = await freshOrganisation(stack, "Sourced A");
    orgB = await freshOrganisation(stack, "Sourced B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    keyA = await newIntegrationKey(stack, adminA.token, ["documents:write"]);
    keyB = await newIntegrationKey(stack, adminB.token, ["documents:write"]);
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("creates an unknown id (201), changes nothing for the same bytes (200 unchanged), and audits every write", async () => {
    const created = await putSourced(stack.baseUrl, keyA.key, "wiki:leave/policy.md", { name: "policy.md", bytes: policy("alphaone", 25) });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.result).to.equal("created");
    expect(created.body.document).to.include({ external_id: "wiki:leave/policy.md", filename: "policy.md", status: "PENDING" });
    const indexed = await settled(orgA, "wiki:leave/policy.md", 0);
    expect(indexed.status).to.equal("COMPLETED");
    expect(indexed.uploaded_by, "the key's creator owns what it stores").to.equal(adminA.id);
    expect(indexed.full_text).to.include("alphaone");

    const again = await putSourced(stack.baseUrl, keyA.key, "wiki:leave/policy.md", { name: "policy.md", bytes: policy("alphaone", 25) });
    expect(again.status).to.equal(200);
    expect(again.body.result).to.equal("unchanged");
    const after = await documentOf(orgA, "wiki:leave/policy.md");
    expect(after).to.include({ ingest_generation: 0, status: "COMPLETED", content_hash: indexed.content_hash });

    const audits = await db()("audit_log").where({ org_id: orgA, action: "integration_key.write_requested", target_id: keyA.id }).select("details");
    const puts = audits
      .map((a: { details: { method: string; status: number; path: string } }) => a.details)
      .filter((d: { method: string }) => d.method === "PUT");
    expect(puts.map((d: { status: number }) => d.status)).to.include.members([201, 200]);
    expect(puts[0]!.path).to.equal("/api/v1/integrations/documents/wiki%3Aleave%2Fpolicy.md");
  });

  it("indexes new bytes while the old version stays searchable, then swaps: every read finds exactly one version", async () => {
    const id = "wiki:leave/swap.md";
    expect((await putSourced(stack.baseUrl, keyA.key, id, { name: "swap.md", bytes: policy("swapold", 20) })).status).to.equal(201);
    const first = await settled(orgA, id, 0);
    const reader = { orgId: orgA, userId: adminA.id };
    const read = async () => {
      const hits = (await keywordSearch(db(), { reader, words: ["swapold", "swapnew"], limit: 20 })).filter((hit) => hit.document_id === first.id);
      const versions = new Set(hits.map((hit) => (hit.content.includes("swapnew") ? "new" : "old")));
      return { hits: hits.length, versions: [...versions] };
    };

    // Slow embeddings keep the new version in flight long enough for many reads.
    stack.llm.setEmbeddingDelay(300);
    const put = await putSourced(stack.baseUrl, keyA.key, id, { name: "swap.md", bytes: policy("swapnew", 30) });
    expect(put.status, JSON.stringify(put.body)).to.equal(202);
    expect(put.body.result).to.equal("updated");
    const reads: Array<{ hits: number; versions: string[]; status: string }> = [];
    for (;;) {
      const { status, ingest_generation } = await documentOf(orgA, id);
      const seen = await read();
      reads.push({ ...seen, status });
      if (ingest_generation === 1 && status === "COMPLETED") break;
      expect(status, "the new version failed").not.to.equal("FAILED");
    }
    expect(reads.filter((r) => r.status !== "COMPLETED").length, "reads made during the re-index").to.be.greaterThan(5);
    for (const r of reads) {
      expect(r.hits, JSON.stringify(r)).to.be.greaterThan(0);
      expect(r.versions, JSON.stringify(r)).to.have.length(1);
    }
    expect(reads[0]!.versions).to.deep.equal(["old"]);
    expect(reads.at(-1)!.versions).to.deep.equal(["new"]);
    const swapped = await documentOf(orgA, id);
    expect(swapped.full_text).to.include("swapnew").and.not.include("swapold");
  });

  it("keeps the old version live when the new one fails, reports it in the status, and indexes it again when pushed again", async function () {
    this.timeout(150_000); // the refused embeddings go through every retry before the run fails
    const id = "wiki:leave/fragile.md";
    expect((await putSourced(stack.baseUrl, keyA.key, id, { name: "fragile.md", bytes: policy("fragileold", 10) })).status).to.equal(201);
    await settled(orgA, id, 0);
    // Extracted and chunked, then the embedding service refuses: the new text must not have gone live either.
    stack.llm.failEmbeddings(400);
    const broken = await putSourced(stack.baseUrl, keyA.key, id, { name: "fragile.md", bytes: policy("fragilenew", 12) });
    expect(broken.body.result).to.equal("updated");
    const failed = await settled(orgA, id, 1);
    stack.llm.failEmbeddings(null);
    expect(failed.status).to.equal("FAILED");
    expect(failed.error_code).to.equal("EMBEDDING_FAILED");
    expect(failed.full_text, "the document rung still reads the old text").to.include("fragileold").and.not.include("fragilenew");
    const chunks = await db()("document_chunks").where({ document_id: failed.id, org_id: orgA }).select("content");
    expect(chunks.length).to.be.greaterThan(0);
    for (const chunk of chunks) expect(chunk.content).to.include("fragileold");
    const listed = await listSourced(stack.baseUrl, keyA.key, `?prefix=${encodeURIComponent(id)}`);
    expect(listed.body.documents[0]).to.include({ external_id: id, status: "FAILED", content_hash: failed.content_hash, error_code: "EMBEDDING_FAILED" });

    const retried = await putSourced(stack.baseUrl, keyA.key, id, { name: "fragile.md", bytes: policy("fragilenew", 12) });
    expect(retried.status).to.equal(202);
    expect(retried.body.result).to.equal("retried");
    const done = await settled(orgA, id, 2);
    expect(done.status).to.equal("COMPLETED");
    expect(done.full_text).to.include("fragilenew");
    const swapped = await db()("document_chunks").where({ document_id: failed.id, org_id: orgA }).select("content");
    for (const chunk of swapped) expect(chunk.content).to.include("fragilenew");
  });

  it("does not index again a version that failed because the file cannot be read; the version before stays live", async () => {
    const id = "wiki:leave/blank.md";
    expect((await putSourced(stack.baseUrl, keyA.key, id, { name: "blank.md", bytes: policy("blankold", 3) })).status).to.equal(201);
    await settled(orgA, id, 0);
    expect((await putSourced(stack.baseUrl, keyA.key, id, { name: "blank.md", bytes: " \n\n \n" })).body.result).to.equal("updated");
    const failed = await settled(orgA, id, 1);
    expect(failed.status).to.equal("FAILED");
    expect(failed.error_code).to.match(/^EXTRACTION_/);
    expect(failed.full_text).to.include("blankold");
    const again = await putSourced(stack.baseUrl, keyA.key, id, { name: "blank.md", bytes: " \n\n \n" });
    expect(again.status).to.equal(200);
    expect(again.body.result).to.equal("unchanged");
    expect(again.body.document.status).to.equal("FAILED");
    expect(await documentOf(orgA, id)).to.include({ ingest_generation: 1, status: "FAILED" });
    expect((await deleteSourced(stack.baseUrl, keyA.key, id)).status).to.equal(204);
  });

  it("answers PUTs of one new id at once with one document", async () => {
    const same = await Promise.all(
      [0, 1, 2, 3].map(() => putSourced(stack.baseUrl, keyA.key, "wiki:race/same.md", { name: "same.md", bytes: policy("racesame", 1) })),
    );
    expect(same.map((r) => r.status).sort(), JSON.stringify(same.map((r) => r.body))).to.deep.equal([200, 200, 200, 201]);
    const different = await Promise.all(
      ["raceone", "racetwo", "racethree"].map((marker) =>
        putSourced(stack.baseUrl, keyA.key, "wiki:race/different.md", { name: "different.md", bytes: policy(marker, 2) }),
      ),
    );
    expect(different.map((r) => r.status).sort(), JSON.stringify(different.map((r) => r.body))).to.deep.equal([201, 202, 202]);
    expect(
      await db()("documents").where({ org_id: orgA }).whereIn("external_id", ["wiki:race/same.md", "wiki:race/different.md"]).count("* as n").first(),
    ).to.deep.equal({ n: "2" });
    for (const id of ["wiki:race/same.md", "wiki:race/different.md"]) expect((await deleteSourced(stack.baseUrl, keyA.key, id)).status).to.equal(204);
  });

  it("counts a new version in place of the old one against the storage quota, and refuses what does not fit (413, 409)", async () => {
    const orgC = await freshOrganisation(stack, "Sourced quota");
    try {
      const adminC = await freshUser(stack, { role: "admin", orgId: orgC });
      const keyC = await newIntegrationKey(stack, adminC.token, ["documents:write"]);
      await db()("organizations").where({ id: orgC }).update({ storage_quota_bytes: 1000 });
      const text = (marker: string, size: number) => `${marker} `.padEnd(size, "x");
      expect((await putSourced(stack.baseUrl, keyC.key, "q:a.txt", { name: "a.txt", bytes: text("first", 700) })).status).to.equal(201);
      const bigger = await putSourced(stack.baseUrl, keyC.key, "q:a.txt", { name: "a.txt", bytes: text("second", 900) });
      expect(bigger.status, JSON.stringify(bigger.body)).to.equal(202);
      const other = await putSourced(stack.baseUrl, keyC.key, "q:b.txt", { name: "b.txt", bytes: text("other", 400) });
      expect(other.status).to.equal(409);
      expect(other.body.error).to.include({ code: "STORAGE_QUOTA_EXCEEDED", quota_bytes: 1000 });
      const tooBig = await putSourced(stack.baseUrl, keyC.key, "q:a.txt", { name: "a.txt", bytes: text("third", 1100) });
      expect(tooBig.status).to.equal(409);
      expect(await documentOf(orgC, "q:a.txt")).to.include({ content_hash: bigger.body.document.content_hash, ingest_generation: 1 });
      expect(await documentOf(orgC, "q:b.txt")).to.equal(undefined);
      const huge = await putSourced(stack.baseUrl, keyC.key, "q:huge.txt", {
        name: "huge.txt",
        bytes: Buffer.alloc(stack.config.server.UPLOAD_MAX_BYTES + 1, 0x61),
      });
      expect(huge.status).to.equal(413);
      expect(huge.body.error.code).to.equal("FILE_TOO_LARGE");
    } finally {
      await dropOrganisations(db(), [orgC]);
    }
  });

  it("refuses bytes another document already has with 409 DOCUMENT_DUPLICATE, changing nothing", async () => {
    const bytes = policy("twinbytes", 5);
    expect((await putSourced(stack.baseUrl, keyA.key, "wiki:twin-a.md", { name: "twin-a.md", bytes })).status).to.equal(201);
    const twin = await putSourced(stack.baseUrl, keyA.key, "wiki:twin-b.md", { name: "twin-b.md", bytes });
    expect(twin.status).to.equal(409);
    expect(twin.body.error.code).to.equal("DOCUMENT_DUPLICATE");
    expect(twin.body.error.duplicate_of.external_id).to.equal("wiki:twin-a.md");
    expect(await documentOf(orgA, "wiki:twin-b.md")).to.equal(undefined);

    const uploaded = await upload(stack.baseUrl, adminA.token, { name: "handbook.txt", bytes: Buffer.from("Uploaded by an admin: the handbook, uploadonly.") });
    expect(uploaded.status).to.equal(202);
    const before = await documentOf(orgA, "wiki:twin-a.md");
    const clash = await putSourced(stack.baseUrl, keyA.key, "wiki:twin-a.md", { name: "twin-a.txt", bytes: "Uploaded by an admin: the handbook, uploadonly." });
    expect(clash.status).to.equal(409);
    expect(clash.body.error.duplicate_of).to.deep.equal({ id: uploaded.body.document_id, external_id: null });
    expect(await documentOf(orgA, "wiki:twin-a.md")).to.include({ content_hash: before.content_hash, ingest_generation: before.ingest_generation });
  });

  it("takes any text as an external id (slashes, spaces, %, #, ?, accents), up to 500 characters", async () => {
    const id = "odd:Ünïcode dir/50% off #1?.md";
    const put = await putSourced(stack.baseUrl, keyB.key, id, { name: "odd.md", bytes: "# Odd\n\nA page with an odd name." });
    expect(put.status, JSON.stringify(put.body)).to.equal(201);
    expect(put.body.document.external_id).to.equal(id);
    const listed = await listSourced(stack.baseUrl, keyB.key, `?prefix=${encodeURIComponent("odd:Ünïcode dir/")}`);
    expect(listed.body.documents.map((d: { external_id: string }) => d.external_id)).to.deep.equal([id]);
    expect((await deleteSourced(stack.baseUrl, keyB.key, id)).status).to.equal(204);
    const long = await putSourced(stack.baseUrl, keyB.key, `odd:${"x".repeat(497)}`, { name: "long.md", bytes: "# Long" });
    expect(long.status).to.equal(400);
    expect(long.body.error.code).to.equal("VALIDATION_ERROR");
  });

  it("lists by external_id, paged and by prefix, with the key's organisation", async () => {
    const page = await listSourced(stack.baseUrl, keyA.key, "?prefix=wiki%3A&limit=2");
    expect(page.status).to.equal(200);
    expect(page.body.organisation.id).to.equal(orgA);
    expect(page.body.documents).to.have.length(2);
    expect(Object.keys(page.body.documents[0]).sort()).to.deep.equal(
      ["content_hash", "error", "error_code", "external_id", "filename", "id", "size_bytes", "status", "title", "updated_at"].sort(),
    );
    const all: string[] = [];
    let after: string | null = null;
    do {
      const next = await listSourced(stack.baseUrl, keyA.key, `?prefix=wiki%3A&limit=2${after ? `&after=${encodeURIComponent(after)}` : ""}`);
      all.push(...next.body.documents.map((d: { external_id: string }) => d.external_id));
      after = next.body.next_after;
    } while (after);
    expect(all).to.deep.equal([...all].sort());
    expect(all).to.include.members(["wiki:leave/policy.md", "wiki:leave/swap.md", "wiki:twin-a.md"]);
    expect(all, "an upload without an external id is not listed").to.have.length(4);
    expect((await listSourced(stack.baseUrl, keyA.key, "?limit=1001")).status).to.equal(400);
  });

  it("never lets another organisation's key see or touch these documents", async () => {
    expect((await listSourced(stack.baseUrl, keyB.key)).body.documents).to.deep.equal([]);
    const removal = await deleteSourced(stack.baseUrl, keyB.key, "wiki:leave/policy.md");
    expect(removal.status).to.equal(404);
    expect(await documentOf(orgA, "wiki:leave/policy.md")).to.include({ status: "COMPLETED" });
    // The same id and bytes in B are B's own document.
    const own = await putSourced(stack.baseUrl, keyB.key, "wiki:leave/policy.md", { name: "policy.md", bytes: policy("alphaone", 25) });
    expect(own.status).to.equal(201);
    const a = await documentOf(orgA, "wiki:leave/policy.md");
    expect(own.body.document.id).not.to.equal(a.id);
    expect((await listSourced(stack.baseUrl, keyA.key, "?prefix=wiki%3Aleave%2Fpolicy")).body.documents.map((d: { id: string }) => d.id)).to.deep.equal([a.id]);
  });

  it("renames a document to its new id keeping its chunks (PATCH), refusing an id another document has", async () => {
    const before = await documentOf(orgA, "wiki:leave/swap.md");
    const chunks = await db()("document_chunks").where({ document_id: before.id }).orderBy("id").pluck("id");
    const path = (id: string) => `/api/v1/integrations/documents/${encodeURIComponent(id)}`;
    const moved = await api(stack.baseUrl, "PATCH", path("wiki:leave/swap.md"), { token: keyA.key, body: { external_id: "wiki:archive/swap.md" } });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(moved.body.document).to.include({ id: before.id, external_id: "wiki:archive/swap.md", content_hash: before.content_hash });
    expect(await documentOf(orgA, "wiki:archive/swap.md")).to.include({ id: before.id, ingest_generation: before.ingest_generation, status: "COMPLETED" });
    expect(await db()("document_chunks").where({ document_id: before.id }).orderBy("id").pluck("id")).to.deep.equal(chunks);
    const taken = await api(stack.baseUrl, "PATCH", path("wiki:archive/swap.md"), { token: keyA.key, body: { external_id: "wiki:twin-a.md" } });
    expect(taken.status).to.equal(409);
    expect(taken.body.error.code).to.equal("EXTERNAL_ID_TAKEN");
    const foreign = await api(stack.baseUrl, "PATCH", path("wiki:archive/swap.md"), { token: keyB.key, body: { external_id: "wiki:stolen.md" } });
    expect(foreign.status).to.equal(404);
    expect(await documentOf(orgA, "wiki:archive/swap.md")).to.include({ id: before.id });
    const bad = await api(stack.baseUrl, "PATCH", path("wiki:archive/swap.md"), { token: keyA.key, body: { external_id: "" } });
    expect(bad.status).to.equal(400);
  });

  it("removes a document with its chunks and file (204), then 404", async () => {
    const doc = await documentOf(orgA, "wiki:leave/policy.md");
    const removed = await deleteSourced(stack.baseUrl, keyA.key, "wiki:leave/policy.md");
    expect(removed.status).to.equal(204);
    expect(await documentOf(orgA, "wiki:leave/policy.md")).to.equal(undefined);
    expect(await db()("document_chunks").where({ document_id: doc.id }).count("* as n").first()).to.deep.equal({ n: "0" });
    expect(await db()("document_files").where({ document_id: doc.id }).first()).to.equal(undefined);
    expect((await deleteSourced(stack.baseUrl, keyA.key, "wiki:leave/policy.md")).status).to.equal(404);
    expect(await documentOf(orgB, "wiki:leave/policy.md"), "B's document of the same id stays").to.not.equal(undefined);
    // Every request with the write scope is audited, refused ones included, in the key's own organisation.
    const deletes = (await db()("audit_log").where({ action: "integration_key.write_requested", target_id: keyA.id }).select("org_id", "details"))
      .filter((row: { details: { method: string; path: string } }) => row.details.method === "DELETE" && row.details.path.endsWith("policy.md"))
      .map((row: { org_id: string; details: { status: number } }) => [row.org_id, row.details.status]);
    expect(deletes).to.have.deep.members([
      [orgA, 204],
      [orgA, 404],
    ]);
    const conflicts = await db()("audit_log")
      .where({ action: "integration_key.write_requested", target_id: keyA.id })
      .whereRaw("(details->>'status')::int = 409")
      .count("* as n")
      .first();
    expect(Number(conflicts?.n)).to.be.greaterThan(0);
  });

  it("refuses a key without documents:write, a file of another type, and a body that is not multipart", async () => {
    const reader = await newIntegrationKey(stack, adminA.token, ["people:read"]);
    const scoped = await putSourced(stack.baseUrl, reader.key, "wiki:x.md", { name: "x.md", bytes: "# x" });
    expect(scoped.status).to.equal(403);
    expect(scoped.body.error.code).to.equal("INTEGRATION_SCOPE_MISSING");
    const exe = await putSourced(stack.baseUrl, keyA.key, "wiki:tool.exe", { name: "tool.exe", bytes: Buffer.from([0x4d, 0x5a, 0x90, 0x00]) });
    expect(exe.status).to.equal(415);
    expect(exe.body.error.code).to.equal("UNSUPPORTED_FILE_TYPE");
    const json = await api(stack.baseUrl, "PUT", `/api/v1/integrations/documents/${encodeURIComponent("wiki:y.md")}`, {
      token: keyA.key,
      body: { text: "hi" },
    });
    expect(json.status).to.equal(415);
    expect(json.body.error.code).to.equal("UNSUPPORTED_MEDIA_TYPE");
    expect(await documentOf(orgA, "wiki:tool.exe")).to.equal(undefined);
  });
});
