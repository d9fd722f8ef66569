/**
 * One `npm run sync` pass decided against an in-memory server (no stack): what is renamed,
 * removed, sent or kept, in which order, and how each refusal is reported. The real CLI over the
 * real API is test/ops/sync-cli.test.ts.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { type StoredDocument, type SyncApi, listFolder, syncFolder } from "../../../ops/cli/folder-sync";

const hash = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A server holding `stored`; `refuse` answers a PUT of that external id with a refusal. */
function fakeServer(stored: StoredDocument[], refuse: Record<string, { skip: boolean; reason: string }> = {}) {
  const calls: string[] = [];
  const documents = new Map(stored.map((document) => [document.external_id, { ...document }]));
  const api: SyncApi = {
    list: async (prefix) => [...documents.values()].filter((document) => document.external_id.startsWith(prefix)),
    put: async (externalId, file) => {
      calls.push(`put ${externalId}`);
      if (refuse[externalId]) return { ok: false, ...refuse[externalId]! };
      const before = documents.get(externalId);
      const content_hash = createHash("sha256").update(file.bytes).digest("hex");
      if (before?.content_hash === content_hash) return { ok: true, result: "unchanged", failed: before.status === "FAILED" ? "no text" : null };
      documents.set(externalId, { external_id: externalId, content_hash, status: "PENDING" });
      return { ok: true, result: before ? "updated" : "created", failed: null };
    },
    remove: async (externalId) => {
      calls.push(`remove ${externalId}`);
      documents.delete(externalId);
      return { ok: true };
    },
    rename: async (from, to) => {
      calls.push(`rename ${from} ${to}`);
      const document = documents.get(from)!;
      documents.delete(from);
      documents.set(to, { ...document, external_id: to });
      return { ok: true };
    },
  };
  return { api, calls, documents };
}

describe("ops/cli/folder-sync.ts: one sync pass", () => {
  let folder: string;
  const files: Record<string, string> = {
    "a.md": "alpha",
    "moved/b.md": "bravo",
    "c.txt": "charlie, edited",
    "d.md": "delta",
    "broken.md": " ",
    "twin.md": "echo",
    "diagram.vsdx": "not sent",
  };

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), "skillnet-folder-sync-"));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), text);
    }
    await mkdir(join(folder, ".git"));
    await writeFile(join(folder, ".git", "HEAD"), "ref");
  });
  after(() => rm(folder, { recursive: true, force: true }));

  it("lists files by relative path with / and leaves dot-files out", async () => {
    expect((await listFolder(folder)).map((file) => file.path)).to.deep.equal(["a.md", "broken.md", "c.txt", "d.md", "diagram.vsdx", "moved/b.md", "twin.md"]);
  });

  it("renames moved bytes, removes before it sends, keeps what matches, and reports refusals without stopping", async () => {
    const { api, calls, documents } = fakeServer(
      [
        { external_id: "docs:a.md", content_hash: hash("alpha"), status: "COMPLETED" },
        { external_id: "docs:b.md", content_hash: hash("bravo"), status: "COMPLETED" },
        { external_id: "docs:c.txt", content_hash: hash("charlie"), status: "COMPLETED" },
        { external_id: "docs:gone.md", content_hash: hash("gone"), status: "COMPLETED" },
        { external_id: "docs:broken.md", content_hash: hash(" "), status: "FAILED" },
        { external_id: "other:x.md", content_hash: hash("x"), status: "COMPLETED" },
      ],
      { "docs:twin.md": { skip: true, reason: "DOCUMENT_DUPLICATE: already the content of another" } },
    );
    const report = await syncFolder(api, { folder, source: "docs", concurrency: 2 });
    expect(report.renamed).to.deep.equal([{ from: "b.md", to: "moved/b.md" }]);
    expect(report.removed).to.deep.equal(["gone.md"]);
    expect(report.changed).to.deep.equal(["c.txt"]);
    expect(report.added).to.deep.equal(["d.md"]);
    expect(report.kept).to.deep.equal(["a.md"]);
    expect(report.skipped).to.deep.equal([
      { path: "diagram.vsdx", reason: "unsupported format" },
      { path: "broken.md", reason: "could not be indexed: no text" },
      { path: "twin.md", reason: "DOCUMENT_DUPLICATE: already the content of another" },
    ]);
    expect(report.failed).to.deep.equal([]);
    const firstPut = calls.findIndex((call) => call.startsWith("put"));
    expect(calls.slice(0, firstPut).sort()).to.deep.equal(["remove docs:gone.md", "rename docs:b.md docs:moved/b.md"]);
    expect(calls).not.to.include("put docs:a.md");
    expect(documents.has("other:x.md"), "another source's document is never touched").to.equal(true);

    const again = await syncFolder(api, { folder, source: "docs", concurrency: 2 });
    expect(again.kept).to.deep.equal(["a.md", "c.txt", "d.md", "moved/b.md"]);
    expect([again.added, again.changed, again.removed, again.renamed]).to.deep.equal([[], [], [], []]);
  });

  it("reports a file whose upload fails and goes on with the others", async () => {
    const { api } = fakeServer([], { "docs:a.md": { skip: false, reason: "fetch failed" } });
    const report = await syncFolder(api, { folder, source: "docs", concurrency: 1 });
    expect(report.failed).to.deep.equal([{ path: "a.md", reason: "fetch failed" }]);
    expect(report.added).to.include.members(["c.txt", "d.md", "moved/b.md", "twin.md"]);
  });
});
